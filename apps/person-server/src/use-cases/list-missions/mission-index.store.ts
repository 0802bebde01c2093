import type Database from 'better-sqlite3';
import { BatchedModelWrites, FileReadModel, openReadModelFile, type AppliedThrough } from '@mission/event-store';
import { mergedRanges } from '../shared/listing-page.js';
import type { MissionIndexEntry } from './mission-index.projection.js';

/** Bumped when the tables change: a file of another version is emptied and the index rebuilt from the store. */
const SCHEMA_VERSION = '1';
/**
 * One row per approved mission. Each listing is a range of one index, already in the listing's order (newest first,
 * ties by digest): an administrator's of `missions_by_tenant`, a person's of `missions_by_agent` for each agent it owns.
 * Both indexes cover every column a page returns, so a page reads no table rows.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS missions (mission_s256 TEXT PRIMARY KEY, agent TEXT NOT NULL, tenant TEXT NOT NULL, approved_at TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS missions_by_tenant ON missions (tenant, approved_at DESC, mission_s256, agent);
CREATE INDEX IF NOT EXISTS missions_by_agent ON missions (tenant, agent, approved_at DESC, mission_s256);
`;
const EMPTY = 'DELETE FROM missions;';
const COLUMNS = 'mission_s256, agent, tenant, approved_at';
/** Strictly after the cursor in the listing's order: older, or as old with a greater digest. */
const AFTER = '(approved_at < @at OR (approved_at = @at AND mission_s256 > @s256))';
const ORDER = 'ORDER BY approved_at DESC, mission_s256 LIMIT @limit';

/** Which missions a listing may show (spec 5.3 roles, as `managementRole`): a tenant's, or its agents' among them. */
export type IndexScope = { readonly tenant: string; readonly agents?: undefined } | { readonly tenant: string; readonly agents: readonly string[] };

type Row = [string, string, string, string];

/**
 * The mission index's storage (ADR 0087): a SQLite file of its own beside the event store, as the issuer's tree model
 * (ADR 0086), so the index holds SQLite's bounded page cache in memory however many missions were approved, a listing
 * reads one page of an index instead of sorting every mission, and a restart resumes from the position stored with the
 * rows. Derived from the `MissionApproved` events only: deleting the file makes the next start rebuild it.
 */
export class MissionIndexStore extends FileReadModel {
  private readonly statements;

  private constructor(db: Database.Database, writes: BatchedModelWrites) {
    super(writes, EMPTY);
    const firstPage = (where: string) => db.prepare(`SELECT ${COLUMNS} FROM missions WHERE ${where} ${ORDER}`).raw(true);
    this.statements = {
      insert: db.prepare('INSERT OR IGNORE INTO missions VALUES (@missionS256, @agent, @tenant, @approvedAt)'),
      one: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM missions WHERE mission_s256 = ?`).raw(true),
      tenant: firstPage('tenant = @tenant'),
      tenantAfter: firstPage(`tenant = @tenant AND ${AFTER}`),
      agent: firstPage('tenant = @tenant AND agent = @agent'),
      agentAfter: firstPage(`tenant = @tenant AND agent = @agent AND ${AFTER}`),
      count: db.prepare<[], { count: number }>('SELECT count(*) AS count FROM missions'),
    };
  }

  /** Opens (creating) the index's file, or `:memory:` for tests (read-model-file.ts). */
  static open(path: string, options: { commitAfterMs?: number; onRecreated?: (reason: string) => void } = {}): MissionIndexStore {
    const db = openReadModelFile(path, {
      description: 'the mission index', oneProcessHint: 'run one Person Server per DATA_DIR', schemaSql: SCHEMA, schemaVersion: SCHEMA_VERSION, onRecreated: options.onRecreated,
    });
    return new MissionIndexStore(db, new BatchedModelWrites(db, { commitAfterMs: options.commitAfterMs }));
  }

  get size(): number {
    return this.statements.count.get()!.count;
  }

  /** An approval; the same mission again changes nothing (its approval is immutable; replays after a crash). */
  approved(entry: MissionIndexEntry, applied: AppliedThrough): void {
    this.writes.change(() => this.statements.insert.run(entry));
    this.writes.appliedEvent(applied);
  }

  /** An event of the category the index does not keep: only the position moves. */
  skipped(applied: AppliedThrough): void {
    this.writes.appliedEvent(applied);
  }

  /** The mission's entry, if it was approved. */
  entry(missionS256: string): MissionIndexEntry | undefined {
    const row = this.statements.one.get(missionS256);
    return row && entryOf(row);
  }

  /**
   * At most `limit` missions of the scope strictly after `after`, in the listing's order. A person's agents are ranges
   * of their own, merged (`mergedRanges`).
   */
  page(scope: IndexScope, after: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'> | undefined, limit: number): MissionIndexEntry[] {
    const bounds = { tenant: scope.tenant, limit, ...(after !== undefined ? { at: after.approvedAt, s256: after.missionS256 } : {}) };
    if (scope.agents === undefined) return (after === undefined ? this.statements.tenant : this.statements.tenantAfter).all(bounds).map((row) => entryOf(row as Row));
    const statement = after === undefined ? this.statements.agent : this.statements.agentAfter;
    return mergedRanges(scope.agents, (agent) => (statement.all({ ...bounds, agent }) as Row[]).map(entryOf), compareNewestFirst, limit);
  }
}

function entryOf([missionS256, agent, tenant, approvedAt]: Row): MissionIndexEntry {
  return { missionS256, agent, tenant, approvedAt };
}

/** The listing's order: newest first, ties by digest, so pages are stable. */
export function compareNewestFirst(a: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'>, b: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'>): number {
  if (a.approvedAt !== b.approvedAt) return a.approvedAt > b.approvedAt ? -1 : 1;
  return a.missionS256 < b.missionS256 ? -1 : a.missionS256 > b.missionS256 ? 1 : 0;
}
