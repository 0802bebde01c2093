import { genesisHash, PREV_HASH } from '@mission/es-kit';
import { categoryOf, formatPosition, type RecordedEvent } from '@mission/event-store';
import type { Findings } from './finding.js';

interface StreamChain {
  next: bigint;
  /** The hash the next event's `prev_hash` must equal; undefined for a stream written without a chain. */
  expectedPrev: string | undefined;
  broken: boolean;
}

/**
 * Per-stream hash chains (ADR 0005), checked in one pass over the global order: each stream's events
 * come in revision order there. Names the stream and revision of the first event whose link or revision
 * does not follow; a stream of a `chainedCategories` category without `prev_hash` is a finding too (an
 * operator could otherwise strip the chain and rewrite the stream).
 */
export class ChainCheck {
  private readonly streams = new Map<string, StreamChain>();

  constructor(
    private readonly findings: Findings,
    private readonly chainedCategories: ReadonlySet<string>,
  ) {}

  get streamCount(): number {
    return this.streams.size;
  }

  observe(event: RecordedEvent, hash: string): void {
    const name = event.streamName;
    let chain = this.streams.get(name);
    const prev = event.metadata[PREV_HASH];
    if (!chain) {
      chain = { next: 0n, expectedPrev: typeof prev === 'string' || this.chainedCategories.has(categoryOf(name)) ? genesisHash(name) : undefined, broken: false };
      this.streams.set(name, chain);
    }
    if (event.revision !== chain.next) {
      const what = event.revision > chain.next
        ? `revision ${event.revision} follows ${chain.next - 1n}: ${event.revision - chain.next} event(s) missing (dropped) before it`
        : `revision ${event.revision} comes after revision ${chain.next - 1n} in the global order (reordered or inserted)`;
      this.report({ rule: 'chain.revision', message: `${name}: ${what}`, ...where(event) }, chain);
    } else if (chain.expectedPrev !== undefined) {
      if (typeof prev !== 'string') this.report({ rule: 'chain.missing_prev_hash', message: `${name} revision ${event.revision} has no prev_hash`, ...where(event) }, chain);
      else if (prev !== chain.expectedPrev) {
        const culprit = event.revision === 0n ? 'the stream genesis' : `revision ${event.revision - 1n}`;
        this.report({
          rule: 'chain.prev_hash',
          message: `${name} revision ${event.revision}: prev_hash does not match ${culprit} (that event was edited, or an event was inserted, dropped or swapped here)`,
          ...where(event),
        }, chain);
      }
    }
    // Re-synchronise on what is there, so one edit is reported once and not for every later event.
    chain.next = event.revision + 1n;
    if (chain.expectedPrev !== undefined) chain.expectedPrev = hash;
  }

  /** Head hashes of every stream (for an external record: truncation of a stream's tail is invisible otherwise). */
  heads(): Map<string, { revision: bigint; hash: string | undefined }> {
    return new Map([...this.streams].map(([name, chain]) => [name, { revision: chain.next - 1n, hash: chain.expectedPrev }]));
  }

  get brokenStreams(): number {
    let count = 0;
    for (const chain of this.streams.values()) if (chain.broken) count += 1;
    return count;
  }

  private report(finding: { rule: string; message: string; stream: string; revision: string; position: string }, chain: StreamChain): void {
    chain.broken = true;
    this.findings.add({ check: 'chain', ...finding });
  }
}

/** Where a finding is, built only when there is one (this runs for every event of the store). */
function where(event: RecordedEvent): { stream: string; revision: string; position: string } {
  return { stream: event.streamName, revision: event.revision.toString(), position: formatPosition(event.position) };
}
