import type { RecordedEvent } from '../port/event-store.js';
import { STORED_TEXTS, type StoredTexts } from '../port/stored-texts.js';
import { decodeFrozen } from './stored-record.js';

/** A committed row as the store wrote it; decoded at most once, when a subscription first needs it. */
export interface RecentRow {
  readonly position: bigint;
  readonly streamName: string;
  readonly category: string;
  readonly type: string;
  readonly revision: bigint;
  readonly record: string;
  /** The data and metadata texts inside `record`, kept by the writer (a row read back from SQLite has none). */
  readonly texts?: StoredTexts;
  decoded?: RecordedEvent;
  /** A lazily decoded row's envelope, once a member needed it (lazilyDecoded). */
  parsed?: RecordedEvent;
}

export interface RecentFilter {
  readonly categories?: ReadonlySet<string> | undefined;
  readonly types?: ReadonlySet<string> | undefined;
}

/** Whether the filter wants the row: in one of its categories and of one of its types (each: all when undefined). */
export function filterWants(filter: RecentFilter, row: RecentRow): boolean {
  return (filter.categories === undefined || filter.categories.has(row.category)) && (filter.types === undefined || filter.types.has(row.type));
}

/**
 * The newest committed events of the embedded store, in position order, so that live subscriptions
 * (every projection and process manager follows the tail) read new events from memory, decoded once
 * and shared, instead of each running its own SQL page and JSON.parse of the same rows. With seven
 * subscribers to the `mission` category, those repeated reads and parses cost more CPU than the
 * cascade's own work (ADR 0010).
 *
 * Invariant: every event that exists in the store with `position >= coveredFrom` is in `rows`. It holds
 * because rows are added only after their transaction committed, in commit order, by the single writer
 * (the file is opened with an exclusive lock), evicted only from the front, and removed when their
 * stream is tombstoned (its rows are deleted). A subscriber positioned before `coveredFrom` gets
 * `undefined` and reads SQLite as before.
 *
 * Shared events are deep-frozen: one subscriber cannot change what another one sees.
 */
export class RecentEvents {
  private rows: RecentRow[] = [];
  /** Index of the first live row in `rows` (evicted rows are dropped in chunks). */
  private start = 0;
  private coveredFrom: bigint;

  constructor(
    headPosition: bigint,
    private readonly capacity: number,
  ) {
    this.coveredFrom = headPosition + 1n;
  }

  /** Rows of one commit, in position order, after COMMIT returned. */
  addCommitted(rows: readonly RecentRow[]): void {
    for (const row of rows) this.rows.push(row);
    const excess = this.rows.length - this.start - this.capacity;
    if (excess > 0) this.start += excess;
    if (this.start >= this.capacity) {
      this.rows = this.rows.slice(this.start);
      this.start = 0;
    }
    const first = this.rows[this.start];
    if (first !== undefined) this.coveredFrom = first.position;
  }

  /** The streams' rows were deleted (tombstone, expiry): they must not be served any more. One pass for all. */
  removeStreams(streamNames: ReadonlySet<string>): void {
    if (streamNames.size === 0) return;
    this.rows = this.rows.slice(this.start).filter((row) => !streamNames.has(row.streamName));
    this.start = 0;
  }

  /**
   * Up to `limit` rows after `after` in the given categories and of the given types (all when undefined),
   * and the position the scan went through (the last row looked at, matching or not); or undefined when
   * some of them may be older than what is held here. A filtered subscriber moves its cursor to
   * `scannedTo`, so the rows it does not want are looked at once, not again at every wake-up: before, a
   * `mission` follower on a PAR-only load rescanned up to the whole buffer (10,000 rows) per commit
   * (6 % of the issuer's CPU).
   */
  page(after: bigint, filter: RecentFilter, limit: number): { rows: RecentRow[]; scannedTo: bigint } | undefined {
    if (after + 1n < this.coveredFrom) return undefined;
    const rows: RecentRow[] = [];
    let scannedTo = after;
    for (let index = this.firstAfter(after); index < this.rows.length && rows.length < limit; index++) {
      const row = this.rows[index]!;
      if (filterWants(filter, row)) rows.push(row);
      scannedTo = row.position;
    }
    return { rows, scannedTo };
  }

  /** Binary search: the index of the first row with position > after. */
  private firstAfter(after: bigint): number {
    let low = this.start;
    let high = this.rows.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.rows[middle]!.position <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** The row as a RecordedEvent, decoded on first use and shared (frozen) afterwards. */
export function sharedRecordedEvent(row: RecentRow): RecordedEvent {
  row.decoded ??= row.texts === undefined ? decodeFrozen(row.position, row.streamName, row.revision, row.record) : lazilyDecoded(row);
  return row.decoded;
}

/**
 * A row this process wrote: the envelope is parsed only when `id`, `data`, `metadata` or `created` is first read, and
 * the stored texts ride along (STORED_TEXTS). The seal writer, the only subscriber of most replay records, hashes the
 * texts and never parses them (before: a JSON.parse, a deep freeze and a JSON.stringify of every event, ≈ 2 % of the
 * issuer's CPU under introspection load). Own enumerable accessors, so a spread or `JSON.stringify` of the event
 * sees the same members as of a decoded one; frozen like it.
 *
 * The accessors are the same functions for every event (LAZY_MEMBERS) and find their row through a hidden member, so
 * that all these events share one hidden class: ≈ 140 bytes each, against ≈ 1 KiB with getters closing over each
 * row — the tail holds thousands of them, and every one was copied by scavenges before it reached the old generation.
 */
function lazilyDecoded(row: RecentRow): RecordedEvent {
  const event = { streamName: row.streamName, revision: row.revision, position: Object.freeze({ commit: row.position, prepare: row.position }) };
  // In the members' order of a decoded event (decodeRecord), which a spread or Object.keys shows.
  Object.defineProperty(event, 'id', LAZY_MEMBERS.id);
  Object.defineProperty(event, 'type', LAZY_MEMBERS.type);
  Object.defineProperty(event, 'data', LAZY_MEMBERS.data);
  Object.defineProperty(event, 'metadata', LAZY_MEMBERS.metadata);
  Object.defineProperty(event, 'created', LAZY_MEMBERS.created);
  Object.defineProperty(event, ROW, { value: row });
  // Not enumerable: a copy made with a spread (`{ ...event, data: changed }`) must not carry texts of other data.
  Object.defineProperty(event, STORED_TEXTS, LAZY_MEMBERS.texts);
  return Object.freeze(event) as unknown as RecordedEvent;
}

/** The hidden member through which a lazily decoded event reaches its row. */
const ROW: unique symbol = Symbol('recent row');

interface LazyEvent {
  readonly [ROW]: RecentRow;
}

/** The row's envelope, parsed (and deep-frozen) once, on the first read of a member that needs it. */
function parsed(event: LazyEvent): RecordedEvent {
  const row = event[ROW];
  return (row.parsed ??= decodeFrozen(row.position, row.streamName, row.revision, row.record));
}

const LAZY_MEMBERS = {
  id: { enumerable: true, get(this: LazyEvent) { return parsed(this).id; } },
  type: { enumerable: true, get(this: LazyEvent) { return this[ROW].type; } },
  data: { enumerable: true, get(this: LazyEvent) { return parsed(this).data; } },
  metadata: { enumerable: true, get(this: LazyEvent) { return parsed(this).metadata; } },
  created: { enumerable: true, get(this: LazyEvent) { return parsed(this).created; } },
  texts: { enumerable: false, get(this: LazyEvent) { return this[ROW].texts; } },
} as const satisfies Record<string, PropertyDescriptor>;
