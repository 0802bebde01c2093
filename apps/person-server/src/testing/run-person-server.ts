import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrapService, type RunningService } from '@mission/platform';
import { personServerService } from '../person-server-service.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const demoConfigFile = join(repositoryRoot, 'config/person-server.json');
export const builtMain = join(repositoryRoot, 'apps/person-server/dist/main.js');

export type LogLine = Record<string, unknown> & { msg: string; level: string };

/** Starts the Person Server in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export async function startPersonServer(dataDir: string, env: Record<string, string> = {}): Promise<{ service: RunningService; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const service = await bootstrapService(personServerService, {
    env: { PORT: '0', BASE_URL: 'http://person-server.test', DATA_DIR: dataDir, CONFIG_FILE: demoConfigFile, ...env },
    logDestination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) },
  });
  return { service, logs };
}

export interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Environment for a child service: the parent's, minus anything that would configure the service by accident. */
export function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['PORT', 'BASE_URL', 'DATA_DIR', 'EVENTSTORE_CONNECTION_STRING', 'CONFIG_FILE', 'SIGNING_KEY_FILE', 'LOG_LEVEL', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...overrides };
}

/**
 * Runs `node apps/person-server/dist/main.js`; `whenListening` is called once the service logged its
 * `listening on` line (e.g. to send it a signal). Killed after `timeoutMs` so a hung child fails the test.
 */
export function runBuiltPersonServer(env: Record<string, string>, whenListening?: (pid: number) => void, timeoutMs = 20_000): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [builtMain], { cwd: repositoryRoot, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let announced = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!announced && whenListening && stdout.includes('"msg":"listening on ')) {
        announced = true;
        whenListening(child.pid!);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}
