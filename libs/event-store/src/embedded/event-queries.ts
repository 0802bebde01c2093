import type Database from 'better-sqlite3';
import { matchesNothing, type CheckedFilter } from '../port/all-filter.js';
import { InvalidEventError } from '../port/errors.js';
import type { ReadStreamOptions, RecordedEvent } from '../port/event-store.js';
import { decodeRecord } from './stored-record.js';
export { readLimit } from '../port/read-options.js';

/**
 * The embedded store's SQL on the `events` and `streams` tables (schema.ts) and the cache of its prepared
 * statements: what the store reads, in one place, so that embedded-event-store.ts keeps to the store's
 * own work (group commit, durability, live subscriptions).
 */
export type EventRow = [position: bigint, stream: string, revision: bigint, record: string];
export const PAGE_SIZE = 2000;
export const COLUMNS = 'position, stream, revision, record';
/**
 * Limits written into the SQL instead of bound (ADR 0077): SQLite, as better-sqlite3 builds it, re-prepares a
 * statement each time its `LIMIT ?` is bound, which doubled the cost of a page read (one-event stream ≈ 31 → 15 µs).
 * Only these few values, so that the statement cache stays small: a whole page, and the single event that
 * `maxCount: 1` reads ask for. Any other limit is bound.
 */
const LITERAL_LIMITS: ReadonlySet<number> = new Set([1, PAGE_SIZE]);

/** `LIMIT n` for one of LITERAL_LIMITS, else `LIMIT ?` (and the caller binds the limit). */
export function limitSql(limit: number): string {
  return LITERAL_LIMITS.has(limit) ? `LIMIT ${limit}` : 'LIMIT ?';
}

/** The limit's parameter: none when limitSql wrote it into the SQL. */
function limitParams(limit: number): number[] {
  return LITERAL_LIMITS.has(limit) ? [] : [limit];
}

export class EventQueries {
  constructor(private readonly db: Database.Database) {}

  /**
   * The stream's head: its newest revision (one probe of `events_by_stream`, the index an append writes anyway), or
   * the revision it had when it was tombstoned (`streams` holds only those, schema 3).
   */
  streamRow(streamName: string): { revision: bigint; tombstone: boolean } | undefined {
    const live = this.statement('SELECT revision FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1').pluck().get(streamName) as bigint | undefined;
    if (live !== undefined) return { revision: live, tombstone: false };
    const deleted = this.statement('SELECT revision FROM streams WHERE name = ? AND tombstone = 1').pluck().get(streamName) as bigint | undefined;
    return deleted === undefined ? undefined : { revision: deleted, tombstone: true };
  }

  readPage(after: bigint, filter: CheckedFilter, limit: number): EventRow[] {
    // Per range (a category, a type, or a type within categories) a range of its index, already in position
    // order; several ranges are merged by position. (`category IN (…) ORDER BY position` sorted every row of
    // the categories after `after` for each page: quadratic when a subscriber was far behind.)
    const ranges = filterRanges(filter);
    if (ranges.length === 0) return [];
    const limited = limitSql(limit);
    const bound = limitParams(limit);
    const one = (range: IndexRange) => `SELECT ${COLUMNS} FROM events ${range.index} WHERE ${range.where} AND position > ? ORDER BY position ${limited}`;
    if (ranges.length === 1) return this.statement(one(ranges[0]!)).raw(true).all(...ranges[0]!.params, after, ...bound) as EventRow[];
    const merged = `SELECT ${COLUMNS} FROM (${ranges.map((range) => `SELECT * FROM (${one(range)})`).join(' UNION ALL ')}) ORDER BY position ${limited}`;
    const params: unknown[] = [];
    for (const range of ranges) params.push(...range.params, after, ...bound);
    params.push(...bound);
    return this.statement(merged).raw(true).all(...params) as EventRow[];
  }

  /** A page of the stream from revision `from` (inclusive) on, in either direction. */
  streamPage(streamName: string, from: bigint, backwards: boolean, limit: number): EventRow[] {
    const sql = backwards
      ? `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC ${limitSql(limit)}`
      : `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC ${limitSql(limit)}`;
    return this.statement(sql).raw(true).all(streamName, from, ...limitParams(limit)) as EventRow[];
  }

  private readonly statements = new Map<string, Database.Statement>();
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The newest position matching the filter: one index probe per range (min/max optimization), not a scan. */
  head(filter: CheckedFilter): bigint | undefined {
    let head: bigint | null = null;
    for (const range of filterRanges(filter)) {
      const position = (this.statement(`SELECT max(position) AS position FROM events ${range.index} WHERE ${range.where}`).get(...range.params) as { position: bigint | null }).position;
      if (position !== null && (head === null || position > head)) head = position;
    }
    return head ?? undefined;
  }
}

export function toRecordedEvent([position, streamName, revision, text]: EventRow): RecordedEvent {
  return decodeRecord(position, streamName, revision, text);
}

export function startRevision(from: ReadStreamOptions['fromRevision'], backwards: boolean, last: bigint): bigint | undefined {
  if (from === undefined) return backwards ? last : 0n;
  if (from === 'start') return backwards ? undefined : 0n;
  if (from === 'end') return backwards ? last : undefined;
  if (typeof from !== 'bigint' || from < 0n) throw new InvalidEventError(`fromRevision must be start, end or a bigint ≥ 0`);
  return from;
}

interface IndexRange {
  /** Pinned, so that the planner never walks a busy category's index to find a rare type. */
  readonly index: string;
  readonly where: string;
  readonly params: readonly string[];
}

/**
 * The index ranges a filter reads: the whole table, one per category (events_by_category), or one per
 * type (events_by_type) — restricted to the categories when both are given. Types name one category's
 * events in practice, so the category test rarely skips a row of the type's range.
 */
function filterRanges(filter: CheckedFilter): IndexRange[] {
  if (matchesNothing(filter)) return [];
  const { categories, types } = filter;
  if (types !== undefined) {
    const inCategories = categories === undefined ? '' : ` AND category IN (${categories.map(() => '?').join(', ')})`;
    return types.map((type) => ({ index: 'INDEXED BY events_by_type', where: `type = ?${inCategories}`, params: [type, ...(categories ?? [])] }));
  }
  if (categories !== undefined) return categories.map((category) => ({ index: 'INDEXED BY events_by_category', where: 'category = ?', params: [category] }));
  return [{ index: '', where: '1 = 1', params: [] }];
}
