import { constants as perfConstants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

/**
 * GC pauses of this process while it is observing (`gc` performance entries): the cascade's rate spreads by ±25 % from
 * run to run on a shared machine, and this says how much of a window went to collection.
 */
export class GcPauses {
  private readonly byKind = new Map<string, { count: number; ms: number }>();
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) this.add(entry);
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop(): void {
    this.add(...this.observer.takeRecords());
    this.observer.disconnect();
  }

  describe(): string {
    let total = 0;
    const parts: string[] = [];
    for (const [kind, { count, ms }] of this.byKind) {
      total += ms;
      parts.push(`${kind} ${count} × = ${ms.toFixed(0)} ms`);
    }
    return `${total.toFixed(0)} ms (${parts.join(', ') || 'none'})`;
  }

  private add(...entries: PerformanceEntry[]): void {
    for (const entry of entries) {
      const kind = GC_KINDS.get((entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind ?? -1) ?? 'other';
      const seen = this.byKind.get(kind) ?? { count: 0, ms: 0 };
      seen.count += 1;
      seen.ms += entry.duration;
      this.byKind.set(kind, seen);
    }
  }
}

const GC_KINDS = new Map<number, string>([
  [perfConstants.NODE_PERFORMANCE_GC_MINOR, 'scavenges'],
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR, 'mark-compacts'],
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental marking'],
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);
