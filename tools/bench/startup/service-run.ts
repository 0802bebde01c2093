import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StartMeasurement {
  /** From spawn to the `listening on` log line. */
  readonly listeningMs: number;
  /** From spawn to the first `/readyz` 200. */
  readonly readyMs: number;
  /** From spawn to the first probe on which each readiness check passed. */
  readonly checks: ReadonlyMap<string, number>;
  /** VmRSS at the first ready answer, and after `settleMs` more. */
  readonly rssAtReady: number;
  readonly rssSettled: number;
  /** VmHWM: the highest RSS of the process so far. */
  readonly peakRss: number;
  /** SIGTERM to exit (graceful drain, final seal). */
  readonly stopMs: number;
}

export interface ServiceRunOptions {
  readonly main: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly baseUrl: string;
  readonly logFile: string;
  readonly readyTimeoutMs: number;
  readonly settleMs: number;
}

/**
 * Starts the built service as its own process, measures its start-up from the outside (log line, `/readyz` every
 * 50 ms with each check's result, RSS from /proc), lets it run `settleMs` after ready, then stops it with SIGTERM.
 */
export async function measureStart(options: ServiceRunOptions): Promise<StartMeasurement> {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const startedAt = performance.now();
  const child = spawn(process.execPath, [options.main], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const since = (): number => Math.round(performance.now() - startedAt);
  let listeningMs: number | undefined;
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    log.write(chunk);
    if (listeningMs !== undefined) return;
    buffered += chunk.toString('utf8');
    if (buffered.includes('"msg":"listening on ')) listeningMs = since();
    buffered = buffered.slice(-200);
  });
  child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', (code) => { exitCode = code; resolve(); }));
  const status = (field: 'VmRSS' | 'VmHWM'): number => {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return match ? Number(match[1]) * 1024 : Number.NaN;
    } catch {
      return Number.NaN;
    }
  };
  const checks = new Map<string, number>();
  let readyMs: number | undefined;
  try {
    while (readyMs === undefined) {
      if (exitCode !== undefined) throw new Error(`the service exited with ${exitCode} before it was ready (log: ${options.logFile})`);
      if (since() > options.readyTimeoutMs) throw new Error(`not ready within ${options.readyTimeoutMs} ms (log: ${options.logFile})`);
      await probe(options.baseUrl, checks, since, () => (readyMs = since()));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const rssAtReady = status('VmRSS');
    await new Promise((resolve) => setTimeout(resolve, options.settleMs));
    const rssSettled = status('VmRSS');
    const peakRss = status('VmHWM');
    const stopAt = performance.now();
    child.kill('SIGTERM');
    await exited;
    return { listeningMs: listeningMs ?? Number.NaN, readyMs, checks, rssAtReady, rssSettled, peakRss, stopMs: Math.round(performance.now() - stopAt) };
  } finally {
    if (exitCode === undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    log.end();
  }
}

async function probe(baseUrl: string, checks: Map<string, number>, since: () => number, ready: () => void): Promise<void> {
  try {
    const reply = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    const body = (await reply.json()) as { checks?: { name: string; ok: boolean }[] };
    const at = since();
    for (const check of body.checks ?? []) if (check.ok && !checks.has(check.name)) checks.set(check.name, at);
    if (reply.status === 200) ready();
  } catch {
    // not listening yet
  }
}

/** What `npm start` runs: the service's bundle (ADR 0078). */
export const serviceMain = (root: string, service: string): string => join(root, `apps/${service}/dist/bundle/main.mjs`);
