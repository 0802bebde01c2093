/**
 * What every Person Server bench section gets, and the shared steps (approved missions, statistics).
 * A section is `{ name, run(context) }` in its own file, registered in bench.ts; sections may leave
 * results for later ones in `context.results` (e.g. `verify` reads what `status` measured).
 */
import type { BenchAgent, BenchFixture } from './fixture.js';
import type { LocalRevocationEndpoint } from './local-resource.js';
import type { PersonServerProcess } from './server.js';
import { HttpSender, jsonOf, signAsAgent, signAsPrincipal } from './signed-client.js';

export interface BenchOptions {
  readonly repositoryRoot: string;
  /** Concurrent callers of the load sections (BENCH_CONCURRENCY, 32). */
  readonly concurrency: number;
  /** Measured seconds of a load section (BENCH_SECONDS, 10). */
  readonly seconds: number;
}

export interface BenchContext {
  readonly options: BenchOptions;
  readonly fixture: BenchFixture;
  readonly server: PersonServerProcess;
  readonly sender: HttpSender;
  /** One approved mission per owner agent (`fixture.owners[i]` holds `missions[i]`). */
  readonly missions: readonly string[];
  /** Numbers a section publishes for later sections, by `<section>.<name>`. */
  readonly results: Map<string, number>;
  /** The local revocation endpoint the bench resource advertises (section `revocation`). */
  readonly resource?: LocalRevocationEndpoint;
  /** The PS `revocation` settings of this run, as printed. */
  readonly revocationSettings?: string;
}

export interface BenchSection {
  readonly name: string;
  /** One line for `--help` and the README. */
  readonly summary: string;
  run(context: BenchContext): Promise<void>;
}

/** DESIGN 3.1: proposal by `agent` → approval by the owning person → poll; returns the Mission Reference (`s256`). */
export async function approvedMission(sender: HttpSender, fixture: BenchFixture, agent: BenchAgent, description: string): Promise<string> {
  const base = sender.baseUrl;
  const proposed = await sender.send(signAsAgent(base, agent, { body: JSON.stringify({ description, tools: ['bench.read'] }) }));
  jsonOf(proposed, 202, 'proposal');
  const location = String(proposed.headers['location']);
  const pendingId = location.split('/').pop()!;
  jsonOf(await sender.send(signAsPrincipal(base, fixture.person, { path: '/mission/approvals', body: JSON.stringify({ pending_id: pendingId, decision: 'approve' }) })), 200, 'approval');
  const polled = jsonOf(await sender.send(signAsAgent(base, agent, { path: new URL(location).pathname })), 200, 'poll');
  return String(polled['s256']);
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const ascending = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

export const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '?');

export const thousands = (value: number): string => Math.round(value).toLocaleString('en');

/** Monotonic microseconds. */
export const nowMicros = (): number => Number(process.hrtime.bigint()) / 1e3;
