import type Database from 'better-sqlite3';
import { EventStoreError } from '../port/errors.js';
import type { Acknowledgement } from '../port/event-store.js';

interface QueuedWrite<T> {
  readonly write: () => T;
  /** Rows it writes (events), for the per-commit budget. */
  readonly rows: number;
  /** `committed`: answered right after COMMIT (ADR 0067); `durable`: once the commit is on disk. */
  readonly acknowledge: Acknowledgement;
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
}

const MAX_WRITES_PER_COMMIT = 1024;
/**
 * Rows per commit (a multi-stream append counts all its events). A commit runs synchronously on the event
 * loop: without a bound, a burst of large batched appends (a cascade) became one commit of thousands of
 * rows that held every request up for 100 ms and more.
 */
const MAX_ROWS_PER_COMMIT = 1024;

/**
 * Group commit: writes requested during one turn of the event loop share one SQLite transaction
 * (one fsync), each in its own savepoint so that one refused append (wrong revision) does not undo
 * its neighbours. Callers are answered only after COMMIT returned and the promise `afterCommit` gives
 * back (the fsync, ADR 0026) resolved, so an acknowledged write is durable.
 */
export class GroupCommitQueue {
  private queue: QueuedWrite<unknown>[] = [];
  private scheduled = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => undefined;
  private readonly commitBatch: Database.Transaction<(batch: QueuedWrite<unknown>[]) => Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>>;

  constructor(
    db: Database.Database,
    private readonly hooks: { afterCommit(): Promise<void> | void; afterRollback(): void },
  ) {
    const inSavepoint = db.transaction((write: () => unknown) => write());
    this.commitBatch = db.transaction((batch: QueuedWrite<unknown>[]) =>
      batch.map((item) => {
        try {
          return { ok: true as const, value: inSavepoint(item.write) };
        } catch (error) {
          // Refusals are the caller's answer; anything else (disk full, I/O) aborts the whole batch.
          if (error instanceof EventStoreError) return { ok: false as const, error };
          throw error;
        }
      }),
    );
  }

  enqueue<T>(write: () => T, rows = 1, acknowledge: Acknowledgement = 'durable'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, rows, acknowledge, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves once everything enqueued so far has been committed or refused. */
  drained(): Promise<void> {
    return this.idle;
  }

  private flush(): void {
    // At least one write, however large; then whole writes while both budgets hold.
    let count = 0;
    let rows = 0;
    while (count < this.queue.length && count < MAX_WRITES_PER_COMMIT && (count === 0 || rows + this.queue[count]!.rows <= MAX_ROWS_PER_COMMIT)) {
      rows += this.queue[count]!.rows;
      count += 1;
    }
    const batch = this.queue.splice(0, count);
    let outcomes: ReturnType<typeof this.commitBatch> | undefined;
    try {
      outcomes = this.commitBatch.immediate(batch);
    } catch (error) {
      this.hooks.afterRollback();
      const failure = new EventStoreError(`embedded store write failed: ${(error as Error).message}`, { cause: error });
      for (const item of batch) item.reject(failure);
    }
    if (outcomes) {
      const settle = (durableOnes: boolean) =>
        outcomes!.forEach((outcome, index) => {
          const item = batch[index]!;
          if ((item.acknowledge === 'durable') !== durableOnes) return;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      // Answered once the commit is durable (ADR 0026): the fsync runs off the event loop meanwhile. Writes that
      // asked for `committed` are answered now, in commit order (ADR 0067).
      const durable = this.hooks.afterCommit();
      settle(false);
      if (durable === undefined) settle(true);
      else durable.then(() => settle(true), (error: unknown) => batch.forEach((item) => item.acknowledge === 'durable' && item.reject(error)));
    }
    if (this.queue.length > 0) {
      setImmediate(() => this.flush());
    } else {
      this.scheduled = false;
      this.markIdle();
    }
  }
}
