import type Database from 'better-sqlite3';
import { formatPosition, parsePosition, type Position } from '../port/position.js';

/** The last event whose changes a model holds. */
export interface AppliedThrough {
  readonly position: Position;
  readonly created: Date;
}

export interface BatchedModelWritesOptions {
  /**
   * How long applied changes may wait in the open transaction (default 1 s). Each commit writes every page its
   * changes touched, and models are keyed by random ids, so committing at every turn of the loop rewrote most of a
   * table's pages many times over during a burst. A crash loses at most this much of the model, which the restart
   * applies again from the store.
   */
  readonly commitAfterMs?: number;
  /** Changes kept in one open transaction at most (default 20,000). */
  readonly maxPendingChanges?: number;
}

const DEFAULT_COMMIT_AFTER_MS = 1_000;
const DEFAULT_MAX_PENDING_CHANGES = 20_000;

/**
 * The writes of a read model kept in its own SQLite file (read-model-file.ts, ADR 0086): changes are batched in one
 * transaction for up to `commitAfterMs`, and the applied position is written in the same transaction as the rows it
 * covers, so the two never disagree after a crash. A commit that fails on the timer is rolled back and thrown by the
 * next change, which stops the projection (readiness says so).
 */
export class BatchedModelWrites {
  private readonly commitAfterMs: number;
  private readonly maxPendingChanges: number;
  private readonly setMeta: Database.Statement<[string, string]>;
  private pending = 0;
  private commitTimer: NodeJS.Timeout | undefined;
  private applied: AppliedThrough | undefined;
  private failure: unknown;

  constructor(
    private readonly db: Database.Database,
    options: BatchedModelWritesOptions = {},
  ) {
    this.commitAfterMs = options.commitAfterMs ?? DEFAULT_COMMIT_AFTER_MS;
    this.maxPendingChanges = options.maxPendingChanges ?? DEFAULT_MAX_PENDING_CHANGES;
    this.setMeta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    const meta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
    const position = meta.get('position')?.value;
    const created = meta.get('created')?.value;
    this.applied = position !== undefined && created !== undefined ? { position: parsePosition(position), created: new Date(created) } : undefined;
  }

  /** The last event whose changes the model holds (committed or about to be), or undefined for an empty model. */
  get appliedThrough(): AppliedThrough | undefined {
    return this.applied;
  }

  /** Runs `write` in the open transaction (opening one), and commits when the batch is full or on the timer. */
  change(write: () => void): void {
    if (this.failure !== undefined) throw this.failure;
    if (!this.db.inTransaction) this.db.exec('BEGIN');
    write();
    if (++this.pending >= this.maxPendingChanges) this.commit();
    this.commitTimer ??= setTimeout(() => {
      this.commitTimer = undefined;
      if (!this.db.open) return;
      try {
        this.commit();
      } catch (error) {
        this.failure = error;
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      }
    }, this.commitAfterMs).unref();
  }

  /** Records that every change of the event at `position` is held (written with the changes, at commit). */
  appliedEvent(applied: AppliedThrough): void {
    this.applied = applied;
    this.change(() => undefined);
  }

  /** Commits the open transaction, if any: the changes and the applied position together. */
  commit(): void {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (!this.db.inTransaction) return;
    if (this.applied) {
      this.setMeta.run('position', formatPosition(this.applied.position));
      this.setMeta.run('created', this.applied.created.toISOString());
    }
    this.db.exec('COMMIT');
    this.pending = 0;
  }

  /** Empties the model with `emptySql` and forgets its position (a rebuild from the store's first event follows). */
  clear(emptySql: string): void {
    this.commit();
    this.db.exec(`${emptySql} DELETE FROM meta WHERE key != 'schema';`);
    this.applied = undefined;
  }

  /** Commits what is pending and closes the file. */
  close(): void {
    this.commit();
    this.db.close();
  }
}

/**
 * What every read model kept in its own file shares (ADR 0086–0088): the applied position, commit, clear and close over
 * its `BatchedModelWrites`. A model adds its tables' statements and the changes its projection makes.
 */
export abstract class FileReadModel {
  protected constructor(
    protected readonly writes: BatchedModelWrites,
    /** Empties the model's tables (a rebuild from the store's first event follows). */
    private readonly emptySql: string,
  ) {}

  /** The last event whose changes the model holds (committed or about to be), or undefined for an empty model. */
  get appliedThrough(): AppliedThrough | undefined {
    return this.writes.appliedThrough;
  }

  /** Commits the open transaction, if any: the changes and the applied position together. */
  commit(): void {
    this.writes.commit();
  }

  /** Empties the model and forgets its position. */
  clear(): void {
    this.writes.clear(this.emptySql);
  }

  /** Commits what is pending and closes the file. */
  close(): void {
    this.writes.close();
  }
}
