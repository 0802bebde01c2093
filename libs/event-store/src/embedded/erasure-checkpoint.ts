import type Database from 'better-sqlite3';

/** How often a blocked erasure checkpoint is tried again while a reader (mission-audit) holds an old snapshot. */
const RETRY_MS = 250;

/**
 * Erasure (ADR 0019): after a tombstone the WAL, which still holds the old page images with the deleted
 * bytes, must be checkpointed into the main file and truncated to nothing. A reader in another process
 * (`mission-audit`, reading a snapshot: ADR 0003) prevents the truncation until it finishes, so the
 * checkpoint never waits on it — that would stall every write of the service — but is tried again after
 * every later commit and on a timer until it succeeds.
 */
export class ErasureCheckpoint {
  private pending = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Database.Database) {}

  /** After a commit that tombstoned a stream. */
  request(): void {
    this.pending = true;
    this.attempt();
  }

  /** After any commit: a pending truncation is retried. */
  retryIfPending(): void {
    if (this.pending) this.attempt();
  }

  get isPending(): boolean {
    return this.pending;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private attempt(): void {
    if (this.truncate()) {
      this.pending = false;
      this.stop();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.db.open && this.pending) this.attempt();
    }, RETRY_MS).unref();
  }

  /** True when the WAL was checkpointed completely and truncated; never waits for a reader. */
  private truncate(): boolean {
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as bigint | number;
    this.db.pragma('busy_timeout = 0');
    try {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: bigint | number }[];
      return result !== undefined && Number(result.busy) === 0;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw error;
    } finally {
      this.db.pragma(`busy_timeout = ${Number(timeout)}`);
    }
  }
}
