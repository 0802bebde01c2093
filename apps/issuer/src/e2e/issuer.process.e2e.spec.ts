import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtMain, demoConfigFile, runBuiltIssuer } from '../testing/run-issuer.js';

/**
 * These run the built entry point as operators do (`node apps/issuer/dist/bundle/main.mjs`, ADR 0078), so they need
 * `npm run build` first; `npm test` builds before testing.
 */
const built = existsSync(builtMain);
if (!built) console.warn(`skipping issuer process tests: ${builtMain} is missing; run \`npm run build\` first`);
const describeBuilt = built ? describe : describe.skip;
/** Starting and stopping a service process takes many seconds on a loaded CI machine; above the harness's 60 s kill. */
const PROCESS_TEST_TIMEOUT_MS = 90_000;

let workDir: string;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'issuer-process-'));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

function configWith(edit: (config: { clients: Record<string, unknown>[] } & Record<string, unknown>) => void): string {
  const config = JSON.parse(readFileSync(demoConfigFile, 'utf8')) as { clients: Record<string, unknown>[] } & Record<string, unknown>;
  edit(config);
  const path = join(workDir, 'issuer.json');
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

const firstKey = (config: { clients: Record<string, unknown>[] }): Record<string, unknown> =>
  (config.clients[0]!['jwks'] as { keys: Record<string, unknown>[] }).keys[0]!;

describeBuilt('node apps/issuer/dist/bundle/main.mjs', () => {
  it('exits non-zero naming a bad environment value', async () => {
    const result = await runBuiltIssuer({ PORT: 'abc', DATA_DIR: join(workDir, 'data') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('config error: PORT must be an integer 0..65535 (0 = any free port), got "abc"\n');
    expect(existsSync(join(workDir, 'data'))).toBe(false);
  }, PROCESS_TEST_TIMEOUT_MS);

  it.each([
    ['a key of an unsupported type', (c: { clients: Record<string, unknown>[] }) => void (firstKey(c)['kty'] = 'RSA'), 'clients[0].jwks.keys[0].kty: must be "EC" or "OKP", got "RSA"'],
    ['a private key member', (c: { clients: Record<string, unknown>[] }) => void (firstKey(c)['d'] = 'c2VjcmV0'), 'clients[0].jwks.keys[0].d: private key material must not be configured here'],
    ['a duplicate client_id', (c: { clients: Record<string, unknown>[] }) => void c.clients.push({ ...c.clients[0]! }), 'clients[5]: duplicate client_id "demo-agent" (already at index 0)'],
    ['an unknown grant type', (c: { clients: Record<string, unknown>[] }) => void (c.clients[0]!['grant_types'] = ['password']), 'clients[0].grant_types[0]: must be "authorization_code", "refresh_token" or "urn:ietf:params:oauth:grant-type:mission-child-creation", got "password"'],
  ])('exits non-zero naming the JSON path of %s in CONFIG_FILE', async (_what, edit, expected) => {
    const configFile = configWith(edit);
    const result = await runBuiltIssuer({ PORT: '0', BASE_URL: 'http://issuer.test', DATA_DIR: join(workDir, 'data'), CONFIG_FILE: configFile });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`config error: ${configFile} ${expected}`);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('exits non-zero when CONFIG_FILE does not exist', async () => {
    const result = await runBuiltIssuer({ PORT: '0', BASE_URL: 'http://issuer.test', DATA_DIR: join(workDir, 'data'), CONFIG_FILE: join(workDir, 'missing.json') });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`config error: CONFIG_FILE ${join(workDir, 'missing.json')} does not exist (looked at ${join(workDir, 'missing.json')})\n`);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('exits non-zero naming a SIGNING_KEY_FILE that is not a private key', async () => {
    const keyFile = join(workDir, 'signing-key.json');
    writeFileSync(keyFile, JSON.stringify(firstKey(JSON.parse(readFileSync(demoConfigFile, 'utf8')) as { clients: Record<string, unknown>[] })));
    const result = await runBuiltIssuer({ PORT: '0', BASE_URL: 'http://issuer.test', DATA_DIR: join(workDir, 'data'), SIGNING_KEY_FILE: keyFile });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`config error: SIGNING_KEY_FILE ${keyFile}: must be a private key: member "d" is missing or malformed\n`);
    expect(result.stdout).not.toContain('"level":"error"');
  }, PROCESS_TEST_TIMEOUT_MS);

  it('exits non-zero with an event-store message when the store file is corrupt', async () => {
    const dataDir = join(workDir, 'data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'events.sqlite'), 'not a database '.repeat(500));
    const result = await runBuiltIssuer({ PORT: '0', BASE_URL: 'http://issuer.test', DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^startup error: event store: .*events\.sqlite is not a readable event-store database/);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('starts with the defaults of DESIGN 5 but PORT, and stops with exit 0 on SIGTERM', async () => {
    const result = await runBuiltIssuer({ PORT: '0', BASE_URL: 'http://localhost:4000', DATA_DIR: join(workDir, 'data') }, (pid) => process.kill(pid, 'SIGTERM'));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; level: string });
    const messages = lines.map((line) => line.msg);
    expect(messages.filter((msg) => msg.startsWith('listening on'))).toEqual(['listening on http://localhost:4000']);
    expect(messages).toEqual(expect.arrayContaining(['shutting down: refusing new connections, finishing requests in flight', 'event store closed', 'stopped']));
    expect(lines.find((line) => line.msg === 'issuer starting')).toMatchObject({ config_file: demoConfigFile });
  }, PROCESS_TEST_TIMEOUT_MS);
});
