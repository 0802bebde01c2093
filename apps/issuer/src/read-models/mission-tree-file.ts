import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** Bumped when the tables change: a file of another version is emptied and the model rebuilt from the store. */
const SCHEMA_VERSION = '1';
/** SQLite's page cache for this file (KiB): what the model keeps in memory, whatever its size on disk. */
const PAGE_CACHE_KIB = 4_096;
/** A WAL grown by a large commit (a rebuild) is cut back to this when it starts again. */
const WAL_SIZE_LIMIT_BYTES = 16 * 2 ** 20;
/** How long an open waits for another process to let go of the file before MissionTreeFileInUseError. */
const BUSY_TIMEOUT_MS = 1_000;
/** SQLite's answers for a file that is not a readable database: the model is derived, so it is started afresh. */
const UNREADABLE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS nodes (
  mission_id TEXT PRIMARY KEY, parent_id TEXT, client_id TEXT NOT NULL, lifecycle TEXT NOT NULL, expires_at INTEGER NOT NULL,
  terminal_at INTEGER, depth INTEGER NOT NULL, cascade_mode TEXT, created_at TEXT NOT NULL, delegable TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS children (parent_id TEXT NOT NULL, child_id TEXT NOT NULL, entries TEXT, terminal INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS children_by_parent ON children (parent_id, child_id);
`;

/** Another process holds the model's file: two issuers on one DATA_DIR would each write the same model. */
export class MissionTreeFileInUseError extends Error {
  constructor(path: string, options?: ErrorOptions) {
    super(`the mission tree model ${path} is in use by another process: run one issuer per DATA_DIR`, options);
    this.name = 'MissionTreeFileInUseError';
  }
}

/**
 * Opens the tree model's SQLite file (ADR 0086), creating it, and takes it for this process: EXCLUSIVE locking, held
 * from the open on, so a second issuer on the same DATA_DIR fails at start with MissionTreeFileInUseError instead of
 * meeting SQLITE_BUSY on a write later. The file is derived from the `mission` streams, so one that SQLite cannot
 * read (not a database, corrupt) is deleted and started afresh, and so is a file of another schema version
 * (emptied); `onRecreated` says why. Either way the runner then rebuilds the model from the store.
 */
export function openMissionTreeFile(path: string, onRecreated?: (reason: string) => void): Database.Database {
  if (path === ':memory:') return prepared(new Database(path), onRecreated);
  mkdirSync(dirname(path), { recursive: true });
  try {
    return prepared(new Database(path, { timeout: BUSY_TIMEOUT_MS }), onRecreated, path);
  } catch (error) {
    if (!UNREADABLE.has((error as { code?: string }).code ?? '')) throw error;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    onRecreated?.(`the file could not be read (${(error as Error).message}): started afresh`);
    return prepared(new Database(path, { timeout: BUSY_TIMEOUT_MS }), onRecreated, path);
  }
}

function prepared(db: Database.Database, onRecreated?: (reason: string) => void, path?: string): Database.Database {
  try {
    // Before the first access, so no shared-memory index is made: nothing but this process reads the file.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // A model rebuilt from the store at worst: COMMIT need not wait for the disk (WAL stays consistent after a crash).
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // Takes the exclusive lock now; in EXCLUSIVE locking mode it is kept after COMMIT.
    db.exec('BEGIN IMMEDIATE; COMMIT;');
    db.exec(SCHEMA);
    const version = (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined)?.value;
    if (version !== SCHEMA_VERSION) {
      if (version !== undefined) onRecreated?.(`schema ${version} found, ${SCHEMA_VERSION} expected: emptied`);
      db.exec('DELETE FROM children; DELETE FROM nodes; DELETE FROM meta;');
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    }
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY' && path !== undefined) throw new MissionTreeFileInUseError(path, { cause: error });
    throw error;
  }
}
