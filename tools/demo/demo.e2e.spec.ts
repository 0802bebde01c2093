import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repositoryRoot } from './stack/stack.js';

/** `npm run demo` as a smoke test: the built demo walks the whole story against both real services and exits 0. */
describe('npm run demo', () => {
  it('walks the story (PS approval, root mission, two sub-agents and a grandchild, denied child, suspend/resume, cascade, PS terminate with revocation) and exits 0', () => {
    const run = spawnSync(process.execPath, [join(repositoryRoot, 'tools/demo/dist/demo.js')], { cwd: repositoryRoot, encoding: 'utf8', timeout: 170_000 });
    expect(run.stdout).toContain('demo passed');
    expect(run.stdout).not.toContain('UNEXPECTED');
    expect(run.status).toBe(0);
  }, 180_000);
});
