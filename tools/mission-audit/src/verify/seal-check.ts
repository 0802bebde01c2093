import { SealSegment, type SealEntry } from '@mission/es-kit';
import { categoryOf, comparePositions, formatPosition, type RecordedEvent } from '@mission/event-store';
import type { AuditSource } from '../source/audit-source.js';
import type { Findings } from './finding.js';
import type { VerifiedSeal } from './load-seals.js';

export interface SealSummary {
  readonly seals: number;
  readonly sealedEvents: number;
  /** After the last valid seal: not yet sealed, or a truncated/unsealed tail (ADR 0028). */
  readonly unsealedEvents: number;
  /** Between valid seals where a seal is missing or invalid. */
  readonly uncoveredEvents: number;
  readonly erasedStreams: number;
  /** Replay records removed by design after their window (ADR 0057). */
  readonly expiredRecords: number;
  readonly lastSeal?: { readonly seq: number; readonly through: string; readonly sealed_at: string };
}

interface Missing {
  readonly seal: VerifiedSeal;
  readonly entry: SealEntry;
}

/**
 * Replays the sealed ranges with the writer's own `SealSegment` and compares the result with what each
 * seal signed, stream by stream: an edited, dropped, inserted or swapped event changes its stream's entry.
 * Streams erased by design (tombstoned, of an erasable category) are reported as erased, not as tampering.
 */
/**
 * A replay record is swept at the earliest five minutes after its token is refused on its own (ADR 0057), so a
 * record absent although its seal is younger than this was deleted by someone else (a replay window re-opened).
 * One minute leaves room for a seal written a while after the record (SEAL_INTERVAL_SECONDS up to four minutes).
 */
export const REPLAY_RECORD_MINIMUM_AGE_MS = 60_000;

export interface ExpiringRecordsRule {
  readonly categories: ReadonlySet<string>;
  /** The instant the audit judges time by (the auditor's clock, or `--as-of`). */
  readonly asOf: Date;
}

export class SealCheck {
  private index = 0;
  private segment = new SealSegment();
  private firstPosition = new Map<string, string>();
  private readonly missing: Missing[] = [];
  private sealed = 0;
  private unsealed = 0;
  private uncovered = 0;
  private erased = 0;
  private expired = 0;
  private gapReported = false;

  constructor(
    private readonly seals: readonly VerifiedSeal[],
    private readonly findings: Findings,
    private readonly erasableCategories: ReadonlySet<string>,
    private readonly expiring: ExpiringRecordsRule = { categories: new Set(), asOf: new Date() },
  ) {}

  observe(event: RecordedEvent, hash: string): void {
    while (this.index < this.seals.length && comparePositions(event.position, this.seals[this.index]!.through) > 0) this.close();
    const seal = this.seals[this.index];
    if (!seal) {
      this.unsealed += 1;
      return;
    }
    if (seal.after !== undefined && comparePositions(event.position, seal.after) <= 0) {
      this.uncovered += 1;
      if (!this.gapReported) {
        this.gapReported = true;
        this.findings.add({
          check: 'seal', rule: 'seal.uncovered', stream: event.streamName, revision: event.revision.toString(), position: formatPosition(event.position),
          message: `${event.streamName} revision ${event.revision} (position ${formatPosition(event.position)}) and the events after it up to seal ${seal.seq} are covered by no valid seal`,
        });
      }
      return;
    }
    if (!this.firstPosition.has(event.streamName)) this.firstPosition.set(event.streamName, formatPosition(event.position));
    this.segment.add(event.streamName, event.revision, hash);
    this.sealed += 1;
  }

  async finish(source: AuditSource): Promise<SealSummary> {
    while (this.index < this.seals.length) this.close();
    for (const { seal, entry } of this.missing) {
      if (this.erasableCategories.has(categoryOf(entry.stream)) && (await source.isTombstoned(entry.stream))) {
        this.erased += 1;
        continue;
      }
      if (this.expiring.categories.has(categoryOf(entry.stream)) && Date.parse(seal.payload.sealed_at) + REPLAY_RECORD_MINIMUM_AGE_MS <= this.expiring.asOf.getTime()) {
        this.expired += 1;
        continue;
      }
      this.findings.add({
        check: 'seal', rule: 'seal.missing_events', stream: entry.stream, revision: entry.from,
        message: `seal ${seal.seq} signed ${entry.stream} revisions ${entry.from}..${entry.to}, which the store no longer holds in that range (deleted or moved)`,
      });
    }
    const last = this.seals[this.seals.length - 1];
    return {
      seals: this.seals.length,
      sealedEvents: this.sealed,
      unsealedEvents: this.unsealed,
      uncoveredEvents: this.uncovered,
      erasedStreams: this.erased,
      expiredRecords: this.expired,
      ...(last ? { lastSeal: { seq: last.seq, through: last.payload.through, sealed_at: last.payload.sealed_at } } : {}),
    };
  }

  private close(): void {
    const seal = this.seals[this.index]!;
    const actual = new Map(this.segment.entries().map((entry) => [entry.stream, entry]));
    for (const signed of seal.entries) {
      const found = actual.get(signed.stream);
      actual.delete(signed.stream);
      if (!found) {
        this.missing.push({ seal, entry: signed });
        continue;
      }
      if (found.from === signed.from && found.to === signed.to && found.digest === signed.digest) continue;
      this.findings.add({
        check: 'seal', rule: 'seal.mismatch', stream: signed.stream, revision: found.from, position: this.firstPosition.get(signed.stream)!,
        message: `${signed.stream}: revisions ${found.from}..${found.to} in the store differ from revisions ${signed.from}..${signed.to} that seal ${seal.seq} signed (edited, dropped, inserted or swapped)`,
      });
    }
    for (const extra of actual.values()) {
      this.findings.add({
        check: 'seal', rule: 'seal.unsigned_events', stream: extra.stream, revision: extra.from, position: this.firstPosition.get(extra.stream)!,
        message: `${extra.stream} revisions ${extra.from}..${extra.to} lie inside the range of seal ${seal.seq} but it does not cover them (inserted)`,
      });
    }
    this.segment = new SealSegment();
    this.firstPosition = new Map();
    this.gapReported = false;
    this.index += 1;
  }
}
