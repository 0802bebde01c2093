import type { OpenDatabaseOptions } from './open-database.js';

export interface EmbeddedEventStoreOptions extends OpenDatabaseOptions {
  readonly logger?: { info(obj: object, msg: string): void };
  /** Upper bound on how long a live subscription waits before looking again (appends wake it at once). */
  readonly subscriptionPollMs?: number;
  /** Newest committed events kept in memory for live subscriptions (default 10,000). */
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

export const RECENT_EVENTS_CAPACITY = 10_000;
