/**
 * Test support for the services: start one in-process on the embedded store, or run its built entry
 * point as a child process. Excluded from the production build; import from specs only.
 */
import { spawn } from 'node:child_process';
import { bootstrapService, type RunningService } from '../bootstrap/bootstrap-service.js';
import type { ServiceDefinition } from '../bootstrap/service-definition.js';

export type LogLine = Record<string, unknown> & { msg: string; level: string };

export interface InProcessOptions {
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly configFile: string;
  readonly env?: Record<string, string>;
}

/** Starts a service in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export async function startServiceForTest<Config>(
  definition: ServiceDefinition<Config>,
  options: InProcessOptions,
): Promise<{ service: RunningService; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const service = await bootstrapService(definition, {
    env: { PORT: '0', BASE_URL: options.baseUrl, DATA_DIR: options.dataDir, CONFIG_FILE: options.configFile, ...options.env },
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
 * Runs `node <main>` from `cwd`; `whenListening` is called with its pid and the port it listens on once the service
 * logged its `listening on` line (e.g. to send it requests, then a signal). Killed after `timeoutMs` so a hung child
 * fails the test; the default is generous because a loaded CI machine takes many seconds to start and stop a service
 * process (a test that calls this needs a jest timeout above it).
 */
export function runBuiltService(
  main: string,
  cwd: string,
  env: Record<string, string>,
  whenListening?: (pid: number, port: number) => void,
  timeoutMs = 60_000,
): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [main], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let announced = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      // A whole line (one ending in a newline), so that the port can be read from it.
      const listening = announced || !whenListening ? undefined : stdout.split('\n').slice(0, -1).find((line) => line.includes('"msg":"listening on '));
      if (listening !== undefined) {
        announced = true;
        whenListening!(child.pid!, (JSON.parse(listening) as { port: number }).port);
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

/**
 * Runs `node <main>` as `runBuiltService` does, calls `whileRunning` with its URL (127.0.0.1 and the port it listens
 * on) once it listens, then stops it with SIGTERM; resolves with how it exited, or rejects with `whileRunning`'s error.
 */
export async function whileServing(
  main: string,
  cwd: string,
  env: Record<string, string>,
  whileRunning: (listenUrl: string) => Promise<void>,
  timeoutMs = 60_000,
): Promise<ProcessResult> {
  let failure: unknown;
  const result = await runBuiltService(
    main,
    cwd,
    env,
    (pid, port) => {
      whileRunning(`http://127.0.0.1:${port}`)
        .catch((error: unknown) => (failure = error))
        .finally(() => {
          // The service may have exited on its own meanwhile (the test then fails on its exit, not on this kill).
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            // already gone
          }
        });
    },
    timeoutMs,
  );
  if (failure !== undefined) throw failure;
  return result;
}

/**
 * What a bundled service's stdout shows that it should not (ADR 0078), one entry per finding; none on a good start.
 * - Nest's start-up chatter is recognised by its classes' names and logged at debug: at the default info level it
 *   appears only when the bundle lost those names (`InstanceLoader` became `_InstanceLoader`).
 * - The WAL checkpoint worker (ADR 0071) loads its driver by path at run time: a worker that could not start is logged.
 */
export function bundledStartProblems(stdout: string): string[] {
  const problems: string[] = [];
  if (stdout.includes('dependencies initialized')) problems.push('Nest start-up chatter at info (class names lost in the bundle)');
  if (stdout.includes('"context":"_')) problems.push('a Nest log context renamed by the bundle');
  if (stdout.includes('SQLite checkpoints the WAL itself again')) problems.push('the WAL checkpoint worker did not start');
  return problems;
}
