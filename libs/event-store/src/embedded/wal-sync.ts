import { open, type FileHandle } from 'node:fs/promises';
import { EventStoreUnavailableError } from '../port/errors.js';

/**
 * Durability off the event loop (ADR 0026). SQLite runs with `synchronous = NORMAL` (COMMIT writes the WAL
 * but does not fsync it) and this class fsyncs the WAL file on the libuv thread pool after each commit:
 * with `synchronous = FULL` SQLite called fsync inside COMMIT, on the event loop, and every request of the
 * process waited ~5 ms per commit on this machine's disk.
 *
 * The guarantees of FULL are kept, not relaxed:
 * - a write is acknowledged only after an fsync that started after its COMMIT (`committed()`);
 * - nothing reads data that is not yet durable: reads and subscriptions wait for `durable()`, so no answer
 *   and no follow-up work (revocations, cascades) can rest on an event a power loss would take back;
 * - SQLite itself syncs the WAL before and the database file after each checkpoint in NORMAL mode, so a
 *   checkpoint never loses a synced frame.
 * Commits that land while an fsync runs are covered together by the next one (group fsync). When an fsync
 * fails the store fails closed: what was written may not be on disk, so every waiting and later write and
 * read is refused (`EventStoreUnavailableError`), as PostgreSQL stops on an fsync failure.
 */
export class WalSync {
  private committedCount = 0;
  private syncedCount = 0;
  private syncing = false;
  private failure: Error | undefined;
  private waiters: Array<{ readonly count: number; readonly resolve: () => void; readonly reject: (error: Error) => void }> = [];

  constructor(private readonly sync: () => Promise<void>) {}

  /** Called right after COMMIT returned: resolves once that commit is on disk. */
  committed(): Promise<void> {
    this.committedCount += 1;
    const waited = this.until(this.committedCount);
    this.startSync();
    return waited;
  }

  /** Resolves once everything committed so far is on disk; undefined when it already is (no promise turn). */
  durable(): Promise<void> | undefined {
    return this.durableThrough(this.committedCount);
  }

  /** How many commits were announced so far (`committed()`): the number a later `durableThrough` waits for. */
  get commits(): number {
    return this.committedCount;
  }

  /** Resolves once the first `count` commits are on disk; undefined when they already are. */
  durableThrough(count: number): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    return this.syncedCount >= count ? undefined : this.until(count);
  }

  /** Whether an fsync failed (the store must then be treated as unavailable). */
  get failed(): Error | undefined {
    return this.failure;
  }

  private until(count: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.syncedCount >= count) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ count, resolve, reject }));
  }

  private startSync(): void {
    if (this.syncing || this.failure) return;
    this.syncing = true;
    const covers = this.committedCount;
    this.sync().then(
      () => {
        this.syncing = false;
        this.syncedCount = covers;
        const ready = this.waiters.filter((waiter) => waiter.count <= covers);
        this.waiters = this.waiters.filter((waiter) => waiter.count > covers);
        for (const waiter of ready) waiter.resolve();
        if (this.committedCount > this.syncedCount) this.startSync();
      },
      (error: unknown) => {
        this.syncing = false;
        this.failure = new EventStoreUnavailableError(`embedded store: fsync of the write-ahead log failed, writes may be lost: ${(error as Error).message}`, { cause: error });
        const waiting = this.waiters;
        this.waiters = [];
        for (const waiter of waiting) waiter.reject(this.failure);
      },
    );
  }
}

/** fdatasync of the WAL file on the thread pool; the handle is opened on first use and closed with the store. */
export function walFileSync(walPath: string, beforeSync?: () => Promise<void>): { readonly sync: () => Promise<void>; readonly close: () => Promise<void> } {
  let handle: Promise<FileHandle> | undefined;
  return {
    sync: async () => {
      await beforeSync?.();
      handle ??= open(walPath, 'r');
      await (await handle).datasync();
    },
    close: async () => {
      if (handle) await (await handle.catch(() => undefined))?.close();
      handle = undefined;
    },
  };
}
