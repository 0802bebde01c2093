/**
 * One service (`node apps/<name>/dist/bundle/main.mjs`, the bundle (ADR 0078), exactly what `npm start` runs) as a child process on a
 * port of its own, with a temporary DATA_DIR; resolved once it logged `listening on`. Its output is kept
 * (the tail is shown when it fails to start) and never printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface ServiceProcessOptions {
  readonly name: string;
  readonly main: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly startTimeoutMs?: number;
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for the service to bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const INHERITED_CONFIG = ['PORT', 'MANAGEMENT_PORT', 'BASE_URL', 'DATA_DIR', 'EVENTSTORE_CONNECTION_STRING', 'CONFIG_FILE', 'SIGNING_KEY_FILE', 'LOG_LEVEL', 'NODE_OPTIONS'];

export class ServiceProcess {
  private output = '';

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {}

  static start(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const env = { ...process.env };
    for (const name of INHERITED_CONFIG) delete env[name];
    const child = spawn(process.execPath, [options.main], { cwd: options.cwd, env: { ...env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const service = new ServiceProcess(options.name, child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${options.name} did not start in time:\n${service.tail()}`));
      }, options.startTimeoutMs ?? 90_000);
      const onData = (chunk: Buffer): void => {
        service.output = (service.output + chunk.toString('utf8')).slice(-20_000);
        if (service.output.includes('"msg":"listening on ')) {
          clearTimeout(timer);
          resolve(service);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${options.name} exited (${code}) before listening:\n${service.tail()}`));
      });
    });
  }

  tail(lines = 15): string {
    return this.output.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
