import type Database from 'better-sqlite3';
import type {
  AllFilter, AllSubscription, AppendOptions, AppendResult, CheckpointStore, EventData, EventStore, ExpectedRevision,
  ReadAllOptions, ReadStreamOptions, RecordedEvent, StreamAppend, StreamAppendOutcome, SubscribeToAllOptions,
} from '../port/event-store.js';
import { EventStoreUnavailableError, InvalidEventError, StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import { parsePosition, formatPosition, START, type Position } from '../port/position.js';
import { categoryOf } from '../port/stream-name.js';
import { checkAllFilter, matchesNothing, type CheckedFilter } from '../port/all-filter.js';
import { assertExpectedRevision, assertExpirable, assertStreamName, serializeEvents, serializeStreamAppends, type SerializedEvent } from '../port/validate-events.js';
import { GroupCommitQueue } from './group-commit-queue.js';
import { openDatabase, type OpenDatabaseOptions } from './open-database.js';
import { AppendSignal } from './append-signal.js';
import { pagedIterable } from './paged-iterable.js';
import { RecentEvents, sharedRecordedEvent, type RecentRow } from './recent-events.js';
import { decodeFrozen, decodeRecord } from './stored-record.js';
import { ErasureCheckpoint } from './erasure-checkpoint.js';
import { WalSync, walFileSync } from './wal-sync.js';

export interface EmbeddedEventStoreOptions extends OpenDatabaseOptions {
  readonly logger?: { info(obj: object, msg: string): void };
  /** Upper bound on how long a live subscription waits before looking again (appends wake it at once). */
  readonly subscriptionPollMs?: number;
  /** Newest committed events kept in memory for live subscriptions (default 10,000). */
  readonly recentEventsCapacity?: number;
  /** Test hook: awaited before each fsync of the WAL, so a test can hold a commit between COMMIT and durable. */
  readonly beforeWalSync?: () => Promise<void>;
}

type EventRow = [position: bigint, stream: string, revision: bigint, record: string];
const PAGE_SIZE = 2000;
const RECENT_EVENTS_CAPACITY = 10_000;
/**
 * Events a subscription delivers before it gives the event loop a turn: a page is handed over as one
 * chain of microtasks, and seven subscribers working through 2,000 events each held requests up for
 * 100 ms and more during a large cascade.
 */
const EVENTS_PER_TURN = 256;
const nextTurn = (): Promise<void> => new Promise((resume) => setImmediate(resume));
const COLUMNS = 'position, stream, revision, record';

/**
 * The default, single-replica event store: one SQLite file in WAL mode under DATA_DIR.
 * Reads are synchronous SQLite calls paged into async iterables; writes go through a group-commit queue.
 */
export class EmbeddedEventStore implements EventStore {
  readonly kind = 'embedded' as const;
  readonly checkpoints: CheckpointStore;
  private readonly writes: GroupCommitQueue;
  private readonly appended = new AppendSignal();
  private closed = false;

  static async open(options: EmbeddedEventStoreOptions): Promise<EmbeddedEventStore> {
    const { db, path, writerLock } = openDatabase(options);
    options.logger?.info(
      { event_store: 'embedded', path },
      `event store: embedded SQLite at ${path} (single replica only; set EVENTSTORE_CONNECTION_STRING to use EventStoreDB)`,
    );
    const walFile = options.synchronous === 'NORMAL' ? undefined : walFileSync(`${path}-wal`, options.beforeWalSync);
    return new EmbeddedEventStore(db, writerLock, options.subscriptionPollMs ?? 1000, options.recentEventsCapacity ?? RECENT_EVENTS_CAPACITY, walFile);
  }

  private readonly recent: RecentEvents;
  private readonly erasure: ErasureCheckpoint;
  /** Rows written by the transaction in progress; they reach `recent` only once it committed. */
  private uncommitted: RecentRow[] = [];
  private uncommittedTombstones: string[] = [];
  private uncommittedExpired: string[] = [];
  /** Writes are answered, and reads and subscribers see them, only once the WAL holding them is on disk. */
  private readonly walSync: WalSync;

  private constructor(
    private readonly db: Database.Database,
    private readonly writerLock: Database.Database,
    private readonly pollMs: number,
    recentEventsCapacity: number,
    private readonly walFile?: { readonly sync: () => Promise<void>; readonly close: () => Promise<void> },
  ) {
    this.walSync = new WalSync(walFile?.sync ?? (() => Promise.resolve()));
    const head = (db.prepare('SELECT max(position) AS position FROM events').get() as { position: bigint | null }).position;
    this.recent = new RecentEvents(head ?? 0n, recentEventsCapacity);
    this.erasure = new ErasureCheckpoint(db);
    // A WAL left behind by a stop during an audit's snapshot may still hold erased bytes: truncate it at start.
    this.erasure.request();
    this.writes = new GroupCommitQueue(db, {
      afterCommit: () => {
        const rows = this.uncommitted;
        const removed = new Set([...this.uncommittedTombstones, ...this.uncommittedExpired]);
        const tombstoned = this.uncommittedTombstones.length > 0;
        this.uncommitted = [];
        this.uncommittedTombstones = [];
        this.uncommittedExpired = [];
        // Erasure (ADR 0019): the zeroed pages reach the main file and the WAL, which still holds the old page
        // images with the deleted bytes, is truncated to nothing (retried while an auditor's snapshot holds it).
        if (tombstoned) this.erasure.request();
        else this.erasure.retryIfPending();
        // Live subscribers get the rows once they are durable; commits become durable in commit order.
        return this.walSync.committed().then(() => {
          this.recent.addCommitted(rows);
          if (removed.size > 0) this.recent.removeStreams(removed);
          this.appended.notify();
        });
      },
      afterRollback: () => {
        this.uncommitted = [];
        this.uncommittedTombstones = [];
        this.uncommittedExpired = [];
      },
    });
    this.checkpoints = {
      load: async (consumer) => {
        await this.durable();
        const row = this.statement('SELECT position FROM checkpoints WHERE consumer = ?').get(consumer) as { position: string } | undefined;
        return row ? parsePosition(row.position) : undefined;
      },
      save: (consumer, position) =>
        this.writes.enqueue(() => {
          this.statement(
            'INSERT INTO checkpoints (consumer, position, updated_at) VALUES (?, ?, ?) ON CONFLICT (consumer) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at',
          ).run(consumer, formatPosition(position), BigInt(Date.now()));
        }),
    };
  }

  async appendToStream(streamName: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen();
    const serialized = serializeEvents(streamName, events);
    const expected = options.expectedRevision ?? 'any';
    assertExpectedRevision(expected);
    return this.enqueueWrite(() => this.writeEvents(streamName, serialized, expected), serialized.length);
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    this.assertOpen();
    const serialized = serializeStreamAppends(appends);
    if (serialized.length === 0) return [];
    // One queued write, so all of them share one transaction. No savepoint per stream: a refusal is
    // raised by checkedRevision before that stream's first write, so it leaves nothing to undo, and
    // any other error aborts the whole transaction (every append of the call is then rejected).
    const rows = serialized.reduce((sum, append) => sum + append.events.length, 0);
    return this.enqueueWrite(() =>
      serialized.map(({ streamName, events, expected }): StreamAppendOutcome => {
        try {
          return { ok: true, result: this.writeEvents(streamName, events, expected) };
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) return { ok: false, error };
          throw error;
        }
      }),
      rows,
    );
  }

  readStream(streamName: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    return pagedIterable(() => {
      this.assertOpen();
      assertStreamName(streamName);
      const backwards = options.direction === 'backwards';
      let remaining = readLimit(options.maxCount);
      const stream = this.streamRow(streamName);
      if (stream?.tombstone) throw new StreamDeletedError(streamName);
      let from = stream ? startRevision(options.fromRevision, backwards, stream.revision) : undefined;
      const page = this.statement(
        backwards
          ? `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`
          : `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?`,
      ).raw(true);
      return () => {
        if (from === undefined || from < 0n || remaining === 0) return undefined;
        const limit = Math.min(PAGE_SIZE, remaining);
        const rows = page.all(streamName, from, limit) as EventRow[];
        remaining -= rows.length;
        const last = rows[rows.length - 1];
        // A short page is the end of the stream: no second query to find that out (most streams fit one page).
        from = last === undefined || rows.length < limit ? undefined : backwards ? last[2] - 1n : last[2] + 1n;
        return rows;
      };
    }, toRecordedEvent, this.durable);
  }

  async streamRevision(streamName: string): Promise<bigint | 'no_stream'> {
    this.assertOpen();
    assertStreamName(streamName);
    await this.durable();
    const stream = this.streamRow(streamName);
    if (stream?.tombstone) throw new StreamDeletedError(streamName);
    return stream ? stream.revision : 'no_stream';
  }

  readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    return pagedIterable(() => {
      this.assertOpen();
      let remaining = readLimit(options.maxCount);
      let after = options.after?.commit ?? START.commit;
      const filter = checkAllFilter(options.filter);
      return () => {
        if (remaining === 0) return undefined;
        const limit = Math.min(PAGE_SIZE, remaining);
        const rows = this.readPage(after, filter, limit);
        remaining = rows.length < limit ? 0 : remaining - rows.length;
        if (rows.length > 0) after = rows[rows.length - 1]![0];
        return rows;
      };
    }, toRecordedEvent, this.durable);
  }

  async headPosition(filter?: AllFilter): Promise<Position | undefined> {
    this.assertOpen();
    await this.durable();
    let head: bigint | null = null;
    // One index probe per range (min/max optimization on events_by_category / events_by_type), not a scan.
    for (const range of filterRanges(checkAllFilter(filter))) {
      const position = (this.statement(`SELECT max(position) AS position FROM events ${range.index} WHERE ${range.where}`).get(...range.params) as { position: bigint | null }).position;
      if (position !== null && (head === null || position > head)) head = position;
    }
    return head === null ? undefined : { commit: head, prepare: head };
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): AllSubscription {
    this.assertOpen();
    const filter = checkAllFilter(options.filter);
    const wake = new AbortController();
    const iterator = this.follow(options.after?.commit ?? START.commit, filter, wake.signal);
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: async () => {
        wake.abort();
        await iterator.return(undefined);
      },
    };
  }

  /**
   * Live subscriptions read the tail from `recent` (decoded once, shared by every subscriber) and fall
   * back to SQLite pages when they are further behind. Either way the events are frozen, so a consumer
   * behaves the same whether it is catching up or live.
   */
  private async *follow(after: bigint, filter: CheckedFilter, closed: AbortSignal): AsyncGenerator<RecordedEvent> {
    const categorySet = filter.categories === undefined ? undefined : new Set(filter.categories);
    const typeSet = filter.types === undefined ? undefined : new Set(filter.types);
    while (!closed.aborted && !this.closed) {
      const recent = this.recent.page(after, { categories: categorySet, types: typeSet }, PAGE_SIZE);
      let count: number;
      if (recent !== undefined) {
        count = recent.rows.length;
        for (const [index, row] of recent.rows.entries()) {
          if (closed.aborted) return;
          if (index > 0 && index % EVENTS_PER_TURN === 0) await nextTurn();
          yield sharedRecordedEvent(row);
          after = row.position;
        }
        // Rows of other categories were looked at: never again (a consumer that resumes from its own
        // checkpoint re-reads them from SQLite, which is correct, only slower).
        if (recent.scannedTo > after) after = recent.scannedTo;
      } else {
        await this.durable();
        const rows = this.readPage(after, filter, PAGE_SIZE);
        count = rows.length;
        for (const [index, [position, streamName, revision, record]] of rows.entries()) {
          if (closed.aborted) return;
          if (index > 0 && index % EVENTS_PER_TURN === 0) await nextTurn();
          yield decodeFrozen(position, streamName, revision, record);
          after = position;
        }
      }
      if (count === 0) await this.appended.next(this.pollMs, closed);
      else if (count === PAGE_SIZE) await nextTurn();
    }
  }

  async tombstoneStream(streamName: string, options: AppendOptions = {}): Promise<void> {
    this.assertOpen();
    assertStreamName(streamName);
    const expected = options.expectedRevision ?? 'any';
    assertExpectedRevision(expected);
    await this.enqueueWrite(() => {
      const current = this.checkedRevision(streamName, expected);
      this.statement('DELETE FROM events WHERE stream = ?').run(streamName);
      this.uncommittedTombstones.push(streamName);
      this.statement('INSERT INTO streams (name, revision, tombstone) VALUES (?, ?, 1) ON CONFLICT (name) DO UPDATE SET tombstone = 1')
        .run(streamName, current === 'no_stream' ? -1n : current);
    });
  }

  async expireStreams(streamNames: readonly string[]): Promise<void> {
    this.assertOpen();
    assertExpirable(streamNames);
    if (streamNames.length === 0) return;
    await this.enqueueWrite(() => {
      const events = this.statement('DELETE FROM events WHERE stream = ?');
      const stream = this.statement('DELETE FROM streams WHERE name = ? AND tombstone = 0');
      for (const name of new Set(streamNames)) {
        // A tombstoned name stays refused for good: expiry never turns a tombstone back into a free name.
        if (stream.run(name).changes === 0) continue;
        events.run(name);
        this.uncommittedExpired.push(name);
      }
    }, streamNames.length);
  }

  async ping(): Promise<void> {
    if (this.closed) throw new EventStoreUnavailableError('embedded event store is closed');
    if (this.walSync.failed) throw this.walSync.failed;
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writes.drained();
    await this.walSync.durable()?.catch(() => undefined);
    await this.walFile?.close();
    this.closed = true;
    this.appended.notify();
    this.erasure.stop();
    this.db.close();
    this.writerLock.close();
  }

  /** A queued write whose rows are forgotten if its savepoint is rolled back (it threw). */
  private enqueueWrite<T>(write: () => T, rows = 1): Promise<T> {
    // Fail closed after a failed fsync: nothing more is acknowledged on a log that may have lost writes.
    if (this.walSync.failed) return Promise.reject(this.walSync.failed);
    return this.writes.enqueue(() => {
      const written = this.uncommitted.length;
      const tombstones = this.uncommittedTombstones.length;
      const expired = this.uncommittedExpired.length;
      try {
        return write();
      } catch (error) {
        this.uncommitted.length = written;
        this.uncommittedTombstones.length = tombstones;
        this.uncommittedExpired.length = expired;
        throw error;
      }
    }, rows);
  }

  private writeEvents(streamName: string, events: SerializedEvent[], expected: ExpectedRevision): AppendResult {
    const current = this.checkedRevision(streamName, expected);
    const insert = this.statement('INSERT INTO events (stream, category, type, revision, record) VALUES (?, ?, ?, ?, ?)');
    const category = categoryOf(streamName);
    const created = Date.now();
    let revision = current === 'no_stream' ? -1n : current;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      // data and metadata are already serialized JSON text; splice them in rather than serializing again.
      const record = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created":${created},"metadata":${event.metadata},"data":${event.data}}`;
      position = insert.run(streamName, category, event.type, revision, record).lastInsertRowid as bigint;
      this.uncommitted.push({ position, streamName, category, type: event.type, revision, record });
    }
    this.statement('INSERT INTO streams (name, revision) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET revision = excluded.revision').run(streamName, revision);
    return { nextExpectedRevision: revision, position: { commit: position, prepare: position } };
  }

  /** The single place where an expected revision is compared with the stream, inside the write transaction. */
  private checkedRevision(streamName: string, expected: ExpectedRevision): bigint | 'no_stream' {
    const stream = this.streamRow(streamName);
    if (stream?.tombstone) throw new StreamDeletedError(streamName);
    const current = stream ? stream.revision : 'no_stream';
    const matches =
      expected === 'any' ||
      (expected === 'no_stream' && current === 'no_stream') ||
      (expected === 'stream_exists' && current !== 'no_stream') ||
      expected === current;
    if (!matches) throw new WrongExpectedRevisionError(streamName, expected, current);
    return current;
  }

  private streamRow(streamName: string): { revision: bigint; tombstone: boolean } | undefined {
    const row = this.statement('SELECT revision, tombstone FROM streams WHERE name = ?').get(streamName) as { revision: bigint; tombstone: bigint } | undefined;
    return row && { revision: row.revision, tombstone: row.tombstone === 1n };
  }

  private readPage(after: bigint, filter: CheckedFilter, limit: number): EventRow[] {
    // Per range (a category, a type, or a type within categories) a range of its index, already in position
    // order; several ranges are merged by position. (`category IN (…) ORDER BY position` sorted every row of
    // the categories after `after` for each page: quadratic when a subscriber was far behind.)
    const ranges = filterRanges(filter);
    if (ranges.length === 0) return [];
    const one = (range: IndexRange) => `SELECT ${COLUMNS} FROM events ${range.index} WHERE ${range.where} AND position > ? ORDER BY position LIMIT ?`;
    if (ranges.length === 1) return this.statement(one(ranges[0]!)).raw(true).all(...ranges[0]!.params, after, limit) as EventRow[];
    const merged = `SELECT ${COLUMNS} FROM (${ranges.map((range) => `SELECT * FROM (${one(range)})`).join(' UNION ALL ')}) ORDER BY position LIMIT ?`;
    const params: unknown[] = [];
    for (const range of ranges) params.push(...range.params, after, limit);
    params.push(limit);
    return this.statement(merged).raw(true).all(...params) as EventRow[];
  }

  private readonly statements = new Map<string, Database.Statement>();
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Until everything committed so far is on disk (ADR 0026): no read observes what a power loss could take back. */
  private readonly durable = (): Promise<void> | undefined => this.walSync.durable();

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailableError('embedded event store is closed');
  }
}

function toRecordedEvent([position, streamName, revision, text]: EventRow): RecordedEvent {
  return decodeRecord(position, streamName, revision, text);
}

function readLimit(maxCount: number | undefined): number {
  if (maxCount === undefined) return Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(maxCount) || maxCount < 0) throw new InvalidEventError(`maxCount must be a non-negative integer, got ${maxCount}`);
  return maxCount;
}

function startRevision(from: ReadStreamOptions['fromRevision'], backwards: boolean, last: bigint): bigint | undefined {
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
