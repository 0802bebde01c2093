import type Database from 'better-sqlite3';
import { BatchedModelWrites, FileReadModel, openReadModelFile, type AppliedThrough } from '@mission/event-store';
import { mergedRanges } from '../shared/listing-page.js';
import type { PendingProposalEntry } from './pending-proposals.projection.js';

/** Bumped when the tables change: a file of another version is emptied and the model rebuilt from the store. */
const SCHEMA_VERSION = '1';
/** One row per proposal neither approved nor declined; a listing reads one range of the index per visible agent. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS pending (pending_id TEXT PRIMARY KEY, agent TEXT NOT NULL, submitted_at TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pending_by_agent ON pending (agent, submitted_at, pending_id);
`;
const EMPTY = 'DELETE FROM pending;';
const COLUMNS = 'pending_id, agent, submitted_at';
/** Strictly after the cursor in the listing's order: newer, or as old with a greater id. */
const AFTER = '(submitted_at > @at OR (submitted_at = @at AND pending_id > @id))';
const ORDER = 'ORDER BY submitted_at, pending_id LIMIT @limit';

type Row = [string, string, string];

/**
 * The pending proposals' storage (ADR 0088): a SQLite file of its own beside the event store, as the missions listing's
 * index (ADR 0087), so proposals left undecided cost disk, not memory, and a listing reads one page per visible agent
 * instead of sorting every pending proposal. Derived from the proposal streams: deleting the file rebuilds it.
 */
export class PendingProposalsStore extends FileReadModel {
  private readonly statements;

  private constructor(db: Database.Database, writes: BatchedModelWrites) {
    super(writes, EMPTY);
    this.statements = {
      insert: db.prepare('INSERT OR IGNORE INTO pending VALUES (@pendingId, @agent, @submittedAt)'),
      remove: db.prepare('DELETE FROM pending WHERE pending_id = ?'),
      agent: db.prepare(`SELECT ${COLUMNS} FROM pending WHERE agent = @agent ${ORDER}`).raw(true),
      agentAfter: db.prepare(`SELECT ${COLUMNS} FROM pending WHERE agent = @agent AND ${AFTER} ${ORDER}`).raw(true),
      count: db.prepare<[], { count: number }>('SELECT count(*) AS count FROM pending'),
    };
  }

  /** Opens (creating) the model's file, or `:memory:` for tests (read-model-file.ts). */
  static open(path: string, options: { commitAfterMs?: number; onRecreated?: (reason: string) => void } = {}): PendingProposalsStore {
    const db = openReadModelFile(path, {
      description: 'the pending proposals model', oneProcessHint: 'run one Person Server per DATA_DIR', schemaSql: SCHEMA, schemaVersion: SCHEMA_VERSION, onRecreated: options.onRecreated,
    });
    return new PendingProposalsStore(db, new BatchedModelWrites(db, { commitAfterMs: options.commitAfterMs }));
  }

  get size(): number {
    return this.statements.count.get()!.count;
  }

  /** A submitted proposal; the same one again changes nothing (replays after a crash). */
  submitted(entry: PendingProposalEntry, applied: AppliedThrough): void {
    this.writes.change(() => this.statements.insert.run(entry));
    this.writes.appliedEvent(applied);
  }

  /** Approved or declined: no longer pending (a replay deletes nothing more). */
  decided(pendingId: string, applied: AppliedThrough): void {
    this.writes.change(() => this.statements.remove.run(pendingId));
    this.writes.appliedEvent(applied);
  }

  /** An event the model does not keep: only the position moves. */
  skipped(applied: AppliedThrough): void {
    this.writes.appliedEvent(applied);
  }

  /**
   * At most `limit` pending proposals of `agents` strictly after `after`, oldest first (ties by id): one range of the
   * index per agent, each of at most `limit`, merged here.
   */
  page(agents: Iterable<string>, after: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'> | undefined, limit: number): PendingProposalEntry[] {
    const statement = after === undefined ? this.statements.agent : this.statements.agentAfter;
    const bounds = { limit, ...(after !== undefined ? { at: after.submittedAt, id: after.pendingId } : {}) };
    const range = (agent: string): PendingProposalEntry[] => (statement.all({ ...bounds, agent }) as Row[]).map(([pendingId, owner, submittedAt]) => ({ pendingId, agent: owner, submittedAt }));
    return mergedRanges(agents, range, comparePending, limit);
  }
}

/** The listing's order: oldest first, ties by pending id, so pages are stable. */
export function comparePending(a: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'>, b: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'>): number {
  if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt ? -1 : 1;
  return a.pendingId < b.pendingId ? -1 : a.pendingId > b.pendingId ? 1 : 0;
}
