/**
 * The soak's final summary: requests and errors, events written (counted in the store), and the PS's memory over
 * the run — RSS min / median / max under load, the first against the last five minutes (is it flat?), VmHWM, the
 * heap, and RSS after the load stopped.
 */
import { ascending, fixed, median, thousands } from './context.js';
import { mib, type MemorySample } from './memory-sampler.js';

export interface SoakOutcome {
  readonly samples: readonly MemorySample[];
  readonly ok: number;
  readonly errors: number;
  readonly failures: ReadonlyMap<string, { count: number; example: string }>;
  readonly late: number;
  readonly maxLagMs: number;
  readonly loadSeconds: number;
  readonly targetRate: number;
  /** Events on the polled missions' streams (approval events included), read from the store after the run. */
  readonly missionEvents: number;
  /** The store's head position: every event it holds. */
  readonly storeHead: number;
  readonly generatorCpuSeconds: number;
  readonly afterSeconds: number;
  readonly nodeOptions: string;
}

const FLATNESS_WINDOW_SECONDS = 300;

function spread(values: readonly number[]): string {
  const finite = ascending(values.filter(Number.isFinite));
  if (finite.length === 0) return '?';
  return `min ${mib(finite[0]!)} / median ${mib(median(finite))} / max ${mib(finite.at(-1)!)} MiB`;
}

export function summarizeSoak(outcome: SoakOutcome): void {
  const { samples, loadSeconds } = outcome;
  const underLoad = samples.filter((taken) => taken.phase === 'load');
  const first = underLoad.filter((taken) => taken.at <= FLATNESS_WINDOW_SECONDS);
  const last = underLoad.filter((taken) => taken.at >= loadSeconds - FLATNESS_WINDOW_SECONDS);
  const before = samples.find((taken) => taken.phase === 'before');
  const after = samples.filter((taken) => taken.phase === 'after').at(-1);
  const requests = outcome.ok + outcome.errors;
  console.log('');
  console.log(`SOAK SUMMARY (PS NODE_OPTIONS "${outcome.nodeOptions}")`);
  console.log(
    `  requests: ${thousands(requests)} in ${fixed(loadSeconds, 0)} s = ${fixed(requests / loadSeconds, 1)}/s (target ${outcome.targetRate}/s); ${thousands(outcome.ok)} × 200, ${outcome.errors} errors; ` +
      `${outcome.late} started > 1 s late, max lag ${fixed(outcome.maxLagMs, 0)} ms`,
  );
  for (const [what, { count, example }] of outcome.failures) console.log(`  ERROR ${count} × ${what}, e.g. ${example}`);
  console.log(`  events written: ${thousands(outcome.missionEvents)} on the polled mission streams (MissionStatusRead + approval), ${thousands(outcome.storeHead)} in the store (head position)`);
  console.log(`  PS RSS before the load: ${mib(before?.rssBytes ?? Number.NaN)} MiB; under load (${underLoad.length} samples): ${spread(underLoad.map((taken) => taken.rssBytes))}`);
  console.log(`  flatness: RSS first ${FLATNESS_WINDOW_SECONDS / 60} min ${spread(first.map((taken) => taken.rssBytes))}; last ${FLATNESS_WINDOW_SECONDS / 60} min ${spread(last.map((taken) => taken.rssBytes))}`);
  console.log(`  heap used under load: ${spread(underLoad.map((taken) => taken.heapUsedBytes))}; heap total ${spread(underLoad.map((taken) => taken.heapTotalBytes))}`);
  console.log(`  heap used first ${FLATNESS_WINDOW_SECONDS / 60} min ${spread(first.map((taken) => taken.heapUsedBytes))}; last ${FLATNESS_WINDOW_SECONDS / 60} min ${spread(last.map((taken) => taken.heapUsedBytes))}`);
  console.log(`  VmHWM (highest RSS of the process, setup included): ${mib(after?.hwmBytes ?? underLoad.at(-1)?.hwmBytes ?? Number.NaN)} MiB`);
  console.log(`  RSS ${outcome.afterSeconds} s after the load stopped: ${mib(after?.rssBytes ?? Number.NaN)} MiB (heap used ${mib(after?.heapUsedBytes ?? Number.NaN)} MiB)`);
  console.log(`  load generator: ${fixed(outcome.generatorCpuSeconds, 1)} s CPU over the load = ${fixed((outcome.generatorCpuSeconds * 1e6) / Math.max(1, requests), 0)} µs per request (signing just in time included)`);
}
