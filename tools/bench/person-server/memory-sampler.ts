/**
 * Memory of the server process over a soak: VmRSS (resident now) and VmHWM (the highest resident so far) from
 * /proc/<pid>/status — what a container's memory limit counts, less the page cache — and V8's heap from the
 * server's own /metrics (prom-client default metrics: `nodejs_heap_size_used_bytes`, `..._total_bytes`,
 * `nodejs_external_memory_bytes`), plus `event_store_append_seconds_count` (appends committed so far).
 */
import { readFileSync } from 'node:fs';

export interface MemorySample {
  /** Seconds since the load started (negative before it). */
  readonly at: number;
  readonly phase: 'before' | 'load' | 'after';
  readonly rssBytes: number;
  readonly hwmBytes: number;
  /** NaN when /metrics did not answer or has no such gauge. */
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly appends: number;
}

/** VmRSS and VmHWM in bytes from /proc (NaN where /proc is not available). */
export function procMemory(pid: number): { rssBytes: number; hwmBytes: number } {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return { rssBytes: Number.NaN, hwmBytes: Number.NaN };
  }
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  };
  return { rssBytes: field('VmRSS'), hwmBytes: field('VmHWM') };
}

/** The value of an unlabelled (or first labelled) sample of a Prometheus text exposition. */
export function metricValue(text: string, name: string): number {
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** Sum of every sample of a metric (e.g. a histogram's `_count` over its label sets). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  let found = false;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'gm'))) {
    sum += Number(match[1]);
    found = true;
  }
  return found ? sum : Number.NaN;
}

export async function sampleMemory(pid: number, metricsUrl: string, at: number, phase: MemorySample['phase']): Promise<MemorySample> {
  const { rssBytes, hwmBytes } = procMemory(pid);
  let text = '';
  try {
    text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  } catch {
    // Memory from /proc is the point; the heap gauges are a bonus.
  }
  return {
    at,
    phase,
    rssBytes,
    hwmBytes,
    heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes'),
    heapTotalBytes: metricValue(text, 'nodejs_heap_size_total_bytes'),
    externalBytes: metricValue(text, 'nodejs_external_memory_bytes'),
    appends: metricSum(text, 'event_store_append_seconds_count'),
  };
}

export const mib = (bytes: number): string => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : '?');
