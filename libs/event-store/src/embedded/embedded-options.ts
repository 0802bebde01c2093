import type { OpenDatabaseOptions } from './open-database.js';

export interface EmbeddedEventStoreOptions extends OpenDatabaseOptions {
  readonly logger?: { info(obj: object, msg: string): void };
  /** Upper bound on how long a live subscription waits before looking again (appends wake it at once). */
  readonly subscriptionPollMs?: number;
  /** Newest committed events kept in memory for live subscriptions (default RECENT_EVENTS_CAPACITY, 2,048). */
  readonly recentEventsCapacity?: number;
  /** Test hook: awaited before each fsync of the WAL, so a test can hold a commit between COMMIT and durable. */
  readonly beforeWalSync?: () => Promise<void>;
  /** Rows committed between two WAL checkpoints, which a worker thread runs (ADR 0071; default 1,000). */
  readonly checkpointEveryRows?: number;
  /** WAL frames from which the worker's checkpoint is finished on the store's connection, so the WAL starts again (default 16,384; ADR 0071). */
  readonly walFramesBeforeRestart?: number;
  /** `sqlite`: SQLite's own checkpoints inside COMMIT, on the event loop, as before ADR 0071 (benchmarks). */
  readonly walCheckpoints?: 'worker' | 'sqlite';
}

/**
 * Twice the rows of the largest commit (group-commit-queue.ts): a subscriber that was current before a full commit
 * still finds every row of it, and of the next, in memory. It was 10,000, and every held event is heap that the
 * scavenges copied while it was young (≈ 2.4 KB each, tail-memory.ts: 24 MB at 10,000, 5 MB now). Counted with
 * 2,048 (2026-11-27): in the 10k cascade bench no subscriber fell behind it. The Person Server's filtered consumers
 * wake only for their own rows and for the 1 s poll, and its status load writes ≈ 2,000 rows a second, so at a poll
 * they may be behind it and then ask SQLite's type index once (48 such reads, none returning a row, in a 10 s status
 * bench; none at 10,000). A subscriber further behind reads SQLite pages, as it always could.
 */
export const RECENT_EVENTS_CAPACITY = 2_048;
