/**
 * The real Person Server for a bench run: `node apps/person-server/dist/bundle/main.mjs` (what `npm start`
 * runs) as a child process, so its event loop and CPU time are its own and not the load generator's.
 * Embedded SQLite store in a fresh temp DATA_DIR, a generated CONFIG_FILE in the same directory, a
 * random SECURITY_AUDIT_HMAC_KEY; its log (LOG_LEVEL, default `info` as `npm start`) goes to a file
 * there, whose tail is printed if the server fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StartOptions {
  readonly repositoryRoot: string;
  readonly config: Record<string, unknown>;
  readonly port: number;
  readonly logLevel: string;
  /** When set, the PS runs with `--cpu-prof` and writes its V8 CPU profile into this directory on exit. */
  readonly profileDir?: string;
  /** The server's NODE_OPTIONS (e.g. `--max-old-space-size=160`); otherwise the bench's own NODE_OPTIONS is not passed on. */
  readonly nodeOptions?: string;
}

/** What a restart needs again: the same directory (DATA_DIR, config, log) and the same environment (audit HMAC key). */
interface Launch {
  readonly options: StartOptions;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
}

export interface ServerMetrics {
  /** `process_cpu_seconds_total` of the server process (user + system). */
  readonly cpuSeconds: number;
  readonly residentBytes: number;
}

export class PersonServerProcess {
  private constructor(
    readonly baseUrl: string,
    readonly tempDir: string,
    readonly logFile: string,
    private readonly child: ChildProcess,
    private readonly launch: Launch,
  ) {}

  static async start(options: StartOptions): Promise<PersonServerProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'bench-person-server-'));
    writeFileSync(join(dir, 'person-server.json'), JSON.stringify(options.config, null, 2));
    const baseUrl = `http://127.0.0.1:${options.port}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['EVENTSTORE_CONNECTION_STRING', 'SIGNING_KEY_FILE', 'NODE_OPTIONS']) delete env[name];
    Object.assign(env, {
      PORT: String(options.port),
      BASE_URL: baseUrl,
      DATA_DIR: join(dir, 'data'),
      CONFIG_FILE: join(dir, 'person-server.json'),
      LOG_LEVEL: options.logLevel,
      SECURITY_AUDIT_HMAC_KEY: randomBytes(32).toString('base64url'),
    });
    if (options.nodeOptions) env['NODE_OPTIONS'] = options.nodeOptions;
    return PersonServerProcess.spawn({ options, dir, env });
  }

  /** Where the embedded store lives (`DATA_DIR`): a bench may write into it while the server is stopped. */
  get dataDir(): string {
    return String(this.launch.env['DATA_DIR']);
  }

  /** A graceful stop that keeps the directory; `resume` starts a new process on the same DATA_DIR, config and keys (every in-memory cache cold). */
  async pause(): Promise<{ resume(): Promise<PersonServerProcess> }> {
    await this.stop(true);
    return { resume: () => PersonServerProcess.spawn(this.launch) };
  }

  private static async spawn(launch: Launch): Promise<PersonServerProcess> {
    const { options, dir, env } = launch;
    const logFile = join(dir, 'person-server.log');
    const log = openSync(logFile, 'a');
    const profile = options.profileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
    const child = spawn(process.execPath, [...profile, join(options.repositoryRoot, 'apps/person-server/dist/bundle/main.mjs')], {
      cwd: options.repositoryRoot,
      env,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const server = new PersonServerProcess(String(env['BASE_URL']), dir, logFile, child, launch);
    try {
      await server.ready();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  private ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      const fail = (error: Error): void => {
        clearInterval(poll);
        clearTimeout(deadline);
        reject(new Error(`${error.message}\n--- person-server log (tail) ---\n${this.logTail()}`));
      };
      const deadline = setTimeout(() => fail(new Error('the Person Server did not become ready within 30 s')), 30_000);
      const poll = setInterval(() => {
        fetch(`${this.baseUrl}/readyz`).then(
          (reply) => {
            if (!reply.ok) return;
            clearInterval(poll);
            clearTimeout(deadline);
            resolve();
          },
          () => undefined,
        );
      }, 100);
      this.child.once('exit', (code) => fail(new Error(`the Person Server exited with ${code}`)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /**
   * Linux scheduler statistics of the server's main thread (its event loop), from
   * `/proc/<pid>/task/<pid>/schedstat`: seconds on a CPU, and seconds runnable but WAITING for a CPU
   * (run queue delay: the machine was busy with other work). Undefined where /proc is not available.
   */
  schedstat(): { onCpuSeconds: number; waitingSeconds: number } | undefined {
    try {
      const [onCpu, waiting] = readFileSync(`/proc/${this.child.pid}/task/${this.child.pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
      return onCpu === undefined || waiting === undefined ? undefined : { onCpuSeconds: onCpu / 1e9, waitingSeconds: waiting / 1e9 };
    } catch {
      return undefined;
    }
  }

  /** CPU time and resident memory from the server's own `/metrics` (prom-client default metrics). */
  async metrics(): Promise<ServerMetrics> {
    const text = await (await fetch(`${this.baseUrl}/metrics`)).text();
    const value = (name: string): number => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { cpuSeconds: value('process_cpu_seconds_total'), residentBytes: value('process_resident_memory_bytes') };
  }

  /** SIGTERM (graceful drain), then removes the temp directory unless `keep`. */
  async stop(keep = false): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((done) => this.child.once('exit', done));
      this.child.kill('SIGTERM');
      await exited;
    }
    if (!keep) rmSync(this.tempDir, { recursive: true, force: true });
  }
}

/**
 * A random port for the bench's Person Server in 7100–7899: no port there is one `fetch` refuses (4900–5799, used
 * before, holds 5060/5061, SIP: the PS then started but `/readyz` never answered the bench).
 */
export function benchPort(): number {
  return 7100 + Math.floor(Math.random() * 800);
}
