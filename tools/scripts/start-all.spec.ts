import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const built = ['apps/issuer/dist/bundle/main.mjs', 'apps/person-server/dist/bundle/main.mjs'].every((main) => existsSync(join(root, main)));
if (!built) console.warn('skipping start-all tests: the services are not built; run `npx tsc -b tsconfig.build.json` first');
const describeBuilt = built ? describe : describe.skip;
/** Two service processes start and stop within seconds here but take many more on a loaded CI machine. */
const KILL_AFTER_MS = 60_000;
const TEST_TIMEOUT_MS = 90_000;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs start-all; `onBothListening` fires once both services logged `listening on`. */
function runStartAll(env: Record<string, string>, onBothListening?: (pid: number) => void): Promise<Outcome> {
  return new Promise((resolvePromise, reject) => {
    const inherited = { ...process.env };
    for (const name of ['PORT', 'BASE_URL', 'DATA_DIR', 'CONFIG_FILE', 'SIGNING_KEY_FILE', 'EVENTSTORE_CONNECTION_STRING', 'NODE_OPTIONS']) delete inherited[name];
    const child = spawn(process.execPath, [join(root, 'tools/scripts/start-all.mjs')], { cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let announced = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const bothListening = ['[issuer] ', '[person-server] '].every((prefix) => stdout.split('\n').some((line) => line.startsWith(prefix) && line.includes('"msg":"listening on ')));
      if (!announced && onBothListening && bothListening) {
        announced = true;
        onBothListening(child.pid!);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

let workDir: string;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'start-all-'));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

const bothOnFreePorts = (): Record<string, string> => ({
  ISSUER_PORT: '0',
  ISSUER_BASE_URL: 'http://issuer.test',
  ISSUER_DATA_DIR: join(workDir, 'issuer'),
  PERSON_SERVER_PORT: '0',
  PERSON_SERVER_BASE_URL: 'http://person-server.test',
  PERSON_SERVER_DATA_DIR: join(workDir, 'person-server'),
});

describeBuilt('tools/scripts/start-all.mjs', () => {
  it('starts both services with prefixed output and stops both on SIGTERM with exit 0', async () => {
    const outcome = await runStartAll(bothOnFreePorts(), (pid) => process.kill(pid, 'SIGTERM'));
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^\[issuer\] \{.*"msg":"listening on http:\/\/issuer\.test"\}$/m);
    expect(outcome.stdout).toMatch(/^\[person-server\] \{.*"msg":"listening on http:\/\/person-server\.test"\}$/m);
    expect(outcome.stdout).toMatch(/^\[issuer\] \{.*"msg":"stopped"\}$/m);
    expect(outcome.stdout).toMatch(/^\[person-server\] \{.*"msg":"stopped"\}$/m);
    expect(outcome.stderr).toContain('[start-all] SIGTERM: stopping the services');
  }, TEST_TIMEOUT_MS);

  it('exits non-zero and stops the other service when one dies', async () => {
    const outcome = await runStartAll({ ...bothOnFreePorts(), PERSON_SERVER_CONFIG_FILE: join(workDir, 'missing.json') });
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(`[person-server] config error: CONFIG_FILE ${join(workDir, 'missing.json')} does not exist`);
    expect(outcome.stderr).toContain('[start-all] person-server exited unexpectedly (code 1); stopping the others');
  }, TEST_TIMEOUT_MS);
});
