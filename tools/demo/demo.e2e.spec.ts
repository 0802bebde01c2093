import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repositoryRoot } from './stack/stack.js';

/** `npm run demo` as a smoke test: the built demo walks the whole story against both real services and exits 0. */
describe('npm run demo', () => {
  it('walks the story (PS approval, root mission, two sub-agents and a grandchild, denied child, suspend/resume, cascade, PS terminate with revocation, metrics on the management ports) and exits 0', () => {
    const run = spawnSync(process.execPath, [join(repositoryRoot, 'tools/demo/dist/demo.js')], { cwd: repositoryRoot, encoding: 'utf8', timeout: 170_000 });
    expect(run.stdout).toContain('demo passed');
    // Issue 18's bar: the named metric families on the management ports after the run (metrics-story.ts).
    expect(run.stdout).toContain('Operations: the metrics on the management ports');
    expect(run.stdout).toMatch(/issuer: the management port lists \d+ named families\n/);
    expect(run.stdout).not.toContain('UNEXPECTED');
    expect(run.status).toBe(0);
  }, 180_000);
});
