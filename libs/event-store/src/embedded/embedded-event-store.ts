import type Database from 'better-sqlite3';
import type {
  Acknowledgement, AllFilter, AllSubscription, AppendOptions, AppendResult, CheckpointStore, EventData, EventStore, ExpectedRevision,
  ReadAllOptions, ReadStreamOptions, RecordedEvent, StreamAppend, StreamAppendOutcome, SubscribeToAllOptions,
} from '../port/event-store.js';
import { EventStoreUnavailableError, StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import { parsePosition, formatPosition, START, type Position } from '../port/position.js';
import { checkAllFilter } from '../port/all-filter.js';
import { assertExpectedRevision, assertExpirable, assertStreamName, serializeEvents, serializeStreamAppends, type SerializedEvent } from '../port/validate-events.js';
import { GroupCommitQueue } from './group-commit-queue.js';
import { openDatabase } from './open-database.js';
import { RECENT_EVENTS_CAPACITY, type EmbeddedEventStoreOptions } from './embedded-options.js';
import { AppendSignal } from './append-signal.js';
import { pagedIterable } from './paged-iterable.js';
import { RecentEvents, type RecentRow } from './recent-events.js';
import { EventQueries, PAGE_SIZE, readLimit, toRecordedEvent } from './event-queries.js';
import { committedHead, streamPages, type StreamSource } from './stream-pages.js';
import { ErasureCheckpoint } from './erasure-checkpoint.js';
import { WalSync, walFileSync } from './wal-sync.js';
import { EventWrites } from './event-writes.js';
import { followStore } from './follow-store.js';
import { PendingStreams } from './pending-streams.js';
export type { EmbeddedEventStoreOptions } from './embedded-options.js';
import { StreamHeads } from './stream-heads.js';
import { WalCheckpointer } from './wal-checkpointer.js';


/**
 * The default, single-replica event store: one SQLite file in WAL mode under DATA_DIR.
 * Reads are synchronous SQLite calls paged into async iterables; writes go through a group-commit queue.
 */
export class EmbeddedEventStore implements EventStore {
  readonly kind = 'embedded' as const;
  readonly checkpoints: CheckpointStore;
  private readonly writes: GroupCommitQueue;
  private readonly appended = new AppendSignal<RecentRow>();
  private closed = false;

  static async open(options: EmbeddedEventStoreOptions): Promise<EmbeddedEventStore> {
    const { db, path, writerLock } = openDatabase(options);
    options.logger?.info(
      { event_store: 'embedded', path },
      `event store: embedded SQLite at ${path} (single replica only; set EVENTSTORE_CONNECTION_STRING to use EventStoreDB)`,
    );
    const walFile = options.synchronous === 'NORMAL' ? undefined : walFileSync(`${path}-wal`, options.beforeWalSync);
    const checkpointer = new WalCheckpointer(
      db,
      path,
      options.checkpointEveryRows,
      (reason) => options.logger?.info({ event_store: 'embedded', path }, `event store: ${reason}; SQLite checkpoints the WAL itself again`),
      undefined,
      options.walFramesBeforeRestart,
    );
    if (options.walCheckpoints !== 'sqlite') checkpointer.start();
    return new EmbeddedEventStore(db, writerLock, options.subscriptionPollMs ?? 1000, options.recentEventsCapacity ?? RECENT_EVENTS_CAPACITY, checkpointer, walFile);
  }

  private readonly recent: RecentEvents;
  private readonly erasure: ErasureCheckpoint;
  /** Rows written by the transaction in progress; they reach `recent` only once it committed. */
  private uncommitted: RecentRow[] = [];
  private uncommittedTombstones: string[] = [];
  private uncommittedExpired: string[] = [];
  /** Writes are answered, and reads and subscribers see them, only once the WAL holding them is on disk. */
  private readonly walSync: WalSync;
  private readonly queries: EventQueries;
  private readonly sqlWrites: EventWrites;
  private readonly pending = new PendingStreams();
  private readonly heads = new StreamHeads();
  /** What stream reads ask (stream-pages.ts). */
  private readonly streamSource: StreamSource;

  private constructor(
    private readonly db: Database.Database,
    private readonly writerLock: Database.Database,
    private readonly pollMs: number,
    recentEventsCapacity: number,
    /** WAL checkpoints, off the event loop (ADR 0071). */
    readonly checkpointer: WalCheckpointer,
    private readonly walFile?: { readonly sync: () => Promise<void>; readonly close: () => Promise<void> },
  ) {
    this.walSync = new WalSync(walFile?.sync ?? (() => Promise.resolve()));
    this.queries = new EventQueries(db);
    this.sqlWrites = new EventWrites(this.queries);
    this.streamSource = { queries: this.queries, heads: this.heads };
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
        // Before anything else runs: a read after this line must see the commit's heads (stream-heads.ts).
        this.heads.committed(rows, removed);
        this.checkpointer.committed(rows.length + removed.size);
        const durable = this.walSync.committed();
        const touched = this.pending.committed(this.walSync.commits, [...rows.map((row) => row.streamName), ...removed]);
        return durable.then(() => {
          this.pending.settled(touched);
          this.recent.addCommitted(rows);
          if (removed.size > 0) this.recent.removeStreams(removed);
          this.appended.notify(rows);
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
        const row = this.queries.statement('SELECT position FROM checkpoints WHERE consumer = ?').get(consumer) as { position: string } | undefined;
        return row ? parsePosition(row.position) : undefined;
      },
      save: (consumer, position) =>
        this.writes.enqueue(() => {
          this.queries.statement(
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
    return this.enqueueWrite(() => this.writeEvents(streamName, serialized, expected), serialized.length, options.acknowledge);
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
      return streamPages(this.streamSource, streamName, options);
    }, toRecordedEvent, () => this.durableStream(streamName));
  }

  async streamRevision(streamName: string): Promise<bigint | 'no_stream'> {
    this.assertOpen();
    assertStreamName(streamName);
    await this.durableStream(streamName);
    const stream = committedHead(this.streamSource, streamName);
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
        const rows = this.queries.readPage(after, filter, limit);
        remaining = rows.length < limit ? 0 : remaining - rows.length;
        if (rows.length > 0) after = rows[rows.length - 1]![0];
        return rows;
      };
    }, toRecordedEvent, this.durable);
  }

  async headPosition(filter?: AllFilter): Promise<Position | undefined> {
    this.assertOpen();
    await this.durable();
    const head = this.queries.head(checkAllFilter(filter));
    return head === undefined ? undefined : { commit: head, prepare: head };
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): AllSubscription {
    this.assertOpen();
    const filter = checkAllFilter(options.filter);
    const wake = new AbortController();
    const source = { recent: this.recent, queries: this.queries, appended: this.appended, pollMs: this.pollMs, durable: this.durable, isClosed: () => this.closed };
    const iterator = followStore(source, options.after?.commit ?? START.commit, filter, wake.signal);
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: async () => {
        wake.abort();
        await iterator.return(undefined);
      },
    };
  }

  async tombstoneStream(streamName: string, options: AppendOptions = {}): Promise<void> {
    this.assertOpen();
    assertStreamName(streamName);
    const expected = options.expectedRevision ?? 'any';
    assertExpectedRevision(expected);
    await this.enqueueWrite(() => {
      this.sqlWrites.tombstone(streamName, expected);
      this.uncommittedTombstones.push(streamName);
    });
  }

  async expireStreams(streamNames: readonly string[]): Promise<void> {
    this.assertOpen();
    assertExpirable(streamNames);
    if (streamNames.length === 0) return;
    await this.enqueueWrite(() => void this.uncommittedExpired.push(...this.sqlWrites.expire(streamNames)), streamNames.length);
  }

  whenDurable(): Promise<void> | undefined {
    return this.walSync.durable();
  }

  async ping(): Promise<void> {
    if (this.closed) throw new EventStoreUnavailableError('embedded event store is closed');
    if (this.walSync.failed) throw this.walSync.failed;
    this.queries.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writes.drained();
    await this.walSync.durable()?.catch(() => undefined);
    await this.walFile?.close();
    await this.checkpointer.stop();
    this.closed = true;
    this.appended.notify();
    this.erasure.stop();
    this.db.close();
    this.writerLock.close();
  }

  /** A queued write whose rows are forgotten if its savepoint is rolled back (it threw). */
  private enqueueWrite<T>(write: () => T, rows = 1, acknowledge: Acknowledgement = 'durable'): Promise<T> {
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
    }, rows, acknowledge);
  }

  private writeEvents(streamName: string, events: SerializedEvent[], expected: ExpectedRevision): AppendResult {
    const { result, rows } = this.sqlWrites.insert(streamName, events, expected);
    for (const row of rows) this.uncommitted.push(row);
    return result;
  }

  /** Until everything committed so far is on disk (ADR 0026): no read observes what a power loss could take back. */
  private readonly durable = (): Promise<void> | undefined => this.walSync.durable();

  /**
   * The same for one stream (ADR 0067): a read of a stream waits only while a commit that wrote, tombstoned or
   * expired it is not yet on disk. A request's own replay records (other streams) then cost no wait on its reads.
   */
  private durableStream(streamName: string): Promise<void> | undefined {
    if (this.walSync.failed) return Promise.reject(this.walSync.failed);
    const commit = this.pending.commitOf(streamName);
    return commit === undefined ? undefined : this.walSync.durableThrough(commit);
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailableError('embedded event store is closed');
  }
}
