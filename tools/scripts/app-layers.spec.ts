import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const script = join(root, 'tools/scripts/app-layers.mjs');

/** The Person Server's folders, highest first (issue 13; docs/architecture.md once it exists). */
export const PERSON_SERVER_LAYERS = ['endpoints,metadata', 'use-cases', 'revocation', 'lifecycle', 'auth', 'tokens', 'store', 'abuse', 'http', 'errors', 'config', 'identity', 'time'];

function run(sourceRoot: string, layers: readonly string[]): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync(process.execPath, [script, sourceRoot, ...layers], { encoding: 'utf8' }) };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { code: failed.status, output: failed.stdout };
  }
}

describe('app folder layering (issue 13; until the app-layering lint rule covers the Person Server)', () => {
  it('issue 13: apps/person-server has no upward import and no circle between its folders', () => {
    const { code, output } = run(join(root, 'apps/person-server/src'), PERSON_SERVER_LAYERS);
    expect(output).toContain('upward (or same-layer) imports: 0');
    expect(output).toContain('circles: 0');
    expect(code).toBe(0);
  });

  it('the probe: an upward import and a circle are found', () => {
    const dir = mkdtempSync(join(tmpdir(), 'app-layers-'));
    try {
      for (const [file, text] of [
        ['high/a.ts', "import { b } from '../low/b.js';\nexport const a = b;\n"],
        ['low/b.ts', "import type { a } from '../high/a.js';\nexport const b = 1 as unknown as typeof a;\n"],
      ] as const) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), text);
      }
      const { code, output } = run(dir, ['high', 'low']);
      expect(output).toContain('upward (or same-layer) imports: 1');
      expect(output).toContain('low/b.ts -> high/a.js');
      expect(output).toContain('circles: 1');
      expect(code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
