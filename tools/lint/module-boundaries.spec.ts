/**
 * Proves the architecture rules in eslint.config.mjs bite: each probe is linted as if it were a file at
 * the given path, through the real ESLint CLI and Nx project graph.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function lint(path: string, code: string): string {
  const result = spawnSync(process.execPath, [resolve(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', path, '--format', 'json'], {
    cwd: root,
    input: code,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  });
  const [report] = JSON.parse(result.stdout) as Array<{ messages: Array<{ ruleId: string | null; message: string; severity: number }> }>;
  return report!.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`).join('\n');
}

beforeAll(() => {
  execFileSync(process.execPath, [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
}, 120_000);

describe('module boundaries', () => {
  it('lets domain code import other domain code and pure Node modules', () => {
    expect(lint('libs/decider/src/probe.ts', "import { createHash } from 'node:crypto';\nexport const h = createHash;\n")).toBe('');
  });

  it('refuses a framework in domain code', () => {
    expect(lint('libs/decider/src/probe.ts', "import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n")).toMatch(/enforce-module-boundaries|no-restricted-imports/);
  });

  it('refuses IO in domain code', () => {
    expect(lint('libs/decider/src/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toMatch(/no-restricted-imports/);
    expect(lint('libs/decider/src/probe.ts', "export const now = () => Date.now();\n")).toMatch(/no-restricted-properties/);
    expect(lint('libs/issuer-domain/src/probe.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n")).toMatch(/no-restricted-imports/);
  });

  it('refuses adapters in domain code', () => {
    expect(lint('libs/decider/src/probe.ts', "import { EmbeddedEventStore } from '@mission/event-store';\nexport const x = EmbeddedEventStore;\n")).toMatch(/enforce-module-boundaries/);
  });

  it('refuses platform (Nest) code in the application kit', () => {
    expect(lint('libs/es-kit/src/probe.ts', "import { startService } from '@mission/platform';\nexport const x = startService;\n")).toMatch(/enforce-module-boundaries/);
  });
});

describe('app layers (mission/app-layers, issue 13)', () => {
  const probe = (path: string) => `import { x } from '${path}';\nexport const y = x;\n`;

  it('lets an app folder import from a lower layer', () => {
    expect(lint('apps/issuer/src/endpoints/probe.ts', probe('../use-cases/revoke-token/revoke-token.handler.js'))).toBe('');
    expect(lint('apps/issuer/src/use-cases/revoke-token/probe.ts', probe('../shared/command-context.js'))).toBe('');
  });

  it('refuses an import from a lower app folder up to a higher one', () => {
    expect(lint('apps/issuer/src/config/probe.ts', probe('../endpoints/token.controller.js'))).toMatch(/mission\/app-layers: 'config' \(layer 0\) may not import from 'endpoints'/);
  });

  it('refuses a circle: siblings of one layer (two use cases) may not import each other', () => {
    expect(lint('apps/issuer/src/use-cases/refresh-tokens/probe.ts', probe('../revoke-token/revoke-token.handler.js'))).toMatch(/mission\/app-layers: .*sibling/);
    expect(lint('apps/issuer/src/lineage/probe.ts', probe('../evidence/child-evidence.reader.js'))).toMatch(/mission\/app-layers: .*sibling/);
  });

  it('refuses a folder that has no layer yet', () => {
    expect(lint('apps/issuer/src/config/probe.ts', probe('../somewhere/new.js'))).toMatch(/mission\/app-layers: folder 'somewhere' has no layer/);
  });

  it('is off for the Person Server until its own layers are configured', () => {
    expect(lint('apps/person-server/src/store/probe.ts', probe('../http/anything.js'))).not.toMatch(/app-layers/);
  });
});
