import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Rows committed between two checkpoints (about four WAL pages per row: some 16 MB of WAL between two). */
export const CHECKPOINT_EVERY_ROWS = 1_000;
/** SQLite's own default, restored on the store's connection if the worker cannot do the work. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;
/** Checkpoints that failed in a row (other than busy) before the work goes back to SQLite. */
const MAX_FAILURES_IN_A_ROW = 3;
/**
 * WAL frames (pages) past which the worker's checkpoint is finished on the store's own connection (16,384 frames of
 * 4 KiB: 64 MiB, the WAL file's size limit), so that the WAL starts again from its beginning (see `committed`).
 */
export const WAL_FRAMES_BEFORE_RESTART = 16_384;

/**
 * The worker: its own connection to the store file, which copies the WAL into the database file when asked
 * (`PASSIVE`: it never waits for the writer or for a reader such as mission-audit's snapshot) and answers with the
 * checkpoint's result. `synchronous = NORMAL` makes SQLite fsync the database file before the WAL may be reused.
 * CommonJS text (an `eval` worker): the store's sources run both compiled and under the test runner's transform.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: 0 });
db.pragma('synchronous = NORMAL');
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (message) => {
  if (message === 'close') { db.close(); parentPort.close(); return; }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, busy: Number(result.busy), log: Number(result.log), checkpointed: Number(result.checkpointed) });
  } catch (error) {
    // Busy: another checkpoint (the store's erasure TRUNCATE) holds the checkpoint lock; the next request retries.
    parentPort.postMessage({ ok: false, busy: error && error.code === 'SQLITE_BUSY' ? 1 : 0, message: String(error && error.message || error) });
  }
});
parentPort.postMessage({ ready: true });
`;

export interface CheckpointResult {
  readonly busy: number;
  /** WAL frames when the checkpoint ran, and how many of them are now in the database file. */
  readonly log: number;
  readonly checkpointed: number;
}

interface Connection {
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop (issue 15). By default SQLite checkpoints inside the COMMIT
 * that pushes the WAL past 1,000 pages: on the event loop, copying some 4 MB and fsyncing the database file while
 * every request waits. Measured on single-event appends: 128–134 µs of CPU and 223–287 µs of wall time per append
 * with SQLite's checkpoints, 97–108 µs and 110–131 µs without any (tools/bench: a microbenchmark in the ADR).
 *
 * Here a worker thread with its own connection runs a `PASSIVE` checkpoint every {@link CHECKPOINT_EVERY_ROWS}
 * committed rows, one at a time; the store's connection checkpoints only to finish one of them once the WAL is large,
 * so that the WAL starts again (`committed`). Durability does not depend on
 * it: an acknowledged write is in the fsynced WAL (ADR 0026), and SQLite recovers a WAL of any length. If the
 * worker cannot start or fails, the store's connection checkpoints as SQLite does by default again (ADR 0071).
 */
export class WalCheckpointer {
  /** The thread, from `start` until `stop`; `worker` is set once its connection is open. */
  private thread: Worker | undefined;
  private worker: Worker | undefined;
  private rowsSinceRequest = 0;
  private running = false;
  private waiters: Array<() => void> = [];
  private stopped = false;
  private failuresInARow = 0;
  /** Checkpoints completed (tests, metrics). */
  completed = 0;
  /** The newest result: the worker's checkpoint, or a finish on the store's connection. */
  lastResult: CheckpointResult | undefined;

  constructor(
    private readonly db: Connection,
    private readonly path: string,
    private readonly everyRows = CHECKPOINT_EVERY_ROWS,
    private readonly onFailure: (reason: string) => void = () => undefined,
    /** The worker's code (tests replace it to make it fail). */
    private readonly workerSource = WORKER_SOURCE,
    private readonly framesBeforeRestart = WAL_FRAMES_BEFORE_RESTART,
  ) {}

  /** Set when the worker's last checkpoint found a WAL of at least `framesBeforeRestart` frames. */
  private finishPending = false;
  /** Checkpoints finished on the store's own connection (tests, metrics). */
  finishedOnStore = 0;

  /** Starts the worker; until it is ready, and if it fails, SQLite's own checkpoints stay on. */
  start(): void {
    try {
      const driver = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(this.workerSource, { eval: true, workerData: { driver, path: this.path } });
      this.thread = worker;
      worker.unref();
      worker.on('message', (message: { ready?: true; ok?: boolean; busy?: number; log?: number; checkpointed?: number; message?: string }) => {
        if (message.ready) {
          if (this.stopped || this.thread !== worker) return;
          this.worker = worker;
          this.db.pragma('wal_autocheckpoint = 0');
          return;
        }
        this.running = false;
        if (message.ok) {
          this.completed += 1;
          this.failuresInARow = 0;
          this.lastResult = { busy: message.busy!, log: message.log!, checkpointed: message.checkpointed! };
          this.finishPending = this.lastResult.log >= this.framesBeforeRestart;
        } else if (!message.busy && ++this.failuresInARow >= MAX_FAILURES_IN_A_ROW) {
          // A busy lock or a passing error is retried with the next request; only a worker that keeps failing is given up.
          this.fail(`WAL checkpoint failed ${MAX_FAILURES_IN_A_ROW} times in a row in the checkpoint worker: ${message.message}`);
        }
        this.waiters.splice(0).forEach((resolve) => resolve());
        // Rows committed while it ran ask for the next one at once — unless this one is to be finished first: the next
        // commit does that, then asks (asking now would keep the worker busy, and the finishing waits for it, forever).
        if (this.rowsSinceRequest >= this.everyRows && !this.finishPending) this.request();
      });
      worker.on('error', (error) => {
        if (this.thread === worker) this.fail(`checkpoint worker stopped: ${error.message}`);
      });
    } catch (error) {
      this.fail(`checkpoint worker did not start: ${(error as Error).message}`);
    }
  }

  /**
   * After each commit, with the rows it wrote.
   *
   * SQLite writes the WAL from its beginning again only when a write transaction starts with every frame of it
   * already in the database file. Under steady writes the worker's checkpoints never get there: commits land while
   * one runs (its result counts only the frames that existed when it began), so each leaves the newest frames behind,
   * and the WAL grew without bound (3.5 GB after 11 minutes of the Person Server's soak at 100 status/s, 105 MiB
   * for 30,000 rows beside a 14 MiB database). So once the worker's checkpoint found `framesBeforeRestart` frames or
   * more, the next commit finishes it on the store's own connection, where no write can land meanwhile: it copies only
   * what the worker left (the frames of the commits made while it ran) and fsyncs the database file — on the event
   * loop, once per some 64 MiB of WAL — and the commit after it starts the WAL again. One attempt per worker result:
   * a reader's snapshot (mission-audit) may still hold frames, as it would with SQLite's own checkpoints.
   */
  committed(rows: number): void {
    this.rowsSinceRequest += rows;
    if (this.finishPending && !this.running) this.finishOnStore();
    if (this.rowsSinceRequest >= this.everyRows) this.request();
  }

  private finishOnStore(): void {
    this.finishPending = false;
    try {
      const [result] = this.db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: bigint | number; log: bigint | number; checkpointed: bigint | number }>;
      this.lastResult = { busy: Number(result!.busy), log: Number(result!.log), checkpointed: Number(result!.checkpointed) };
      this.finishedOnStore += 1;
    } catch {
      // Busy (the erasure's TRUNCATE checkpoint) or a passing error: the worker's next checkpoint asks again.
    }
  }

  /** Asks for a checkpoint now (unless one is running); resolves when the worker answered, or at once without a worker. */
  request(): Promise<void> {
    if (this.worker === undefined) return Promise.resolve();
    const answered = new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.running) {
      this.running = true;
      this.rowsSinceRequest = 0;
      this.worker.postMessage('checkpoint');
    }
    return answered;
  }

  /** Whether the worker does the checkpoints (false before it is ready and after a failure). */
  get active(): boolean {
    return this.worker !== undefined;
  }

  /** Closes the worker's connection (before the store's own, which then checkpoints what is left at close). */
  async stop(): Promise<void> {
    this.stopped = true;
    const thread = this.thread;
    const ready = this.worker !== undefined;
    this.thread = undefined;
    this.worker = undefined;
    this.waiters.splice(0).forEach((resolve) => resolve());
    if (thread === undefined) return;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Held until it has exited: an unref'd thread would let a shutting-down process end right here, before the
    // store is closed and the last log lines are written.
    thread.ref();
    // A ready worker closes its connection itself; one still opening it is stopped where it is.
    if (ready) thread.postMessage('close');
    else void thread.terminate();
    await exited;
  }

  private fail(reason: string): void {
    const worker = this.thread;
    this.thread = undefined;
    this.worker = undefined;
    this.running = false;
    this.waiters.splice(0).forEach((resolve) => resolve());
    if (!this.stopped) {
      this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
      this.onFailure(reason);
    }
    void worker?.terminate();
  }
}
