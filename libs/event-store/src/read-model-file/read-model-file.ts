import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** SQLite's page cache for a model's file (KiB): what a model keeps in memory, whatever its size on disk. */
const PAGE_CACHE_KIB = 4_096;
/** A WAL grown by a large commit (a rebuild) is cut back to this when it starts again. */
const WAL_SIZE_LIMIT_BYTES = 16 * 2 ** 20;
/** How long an open waits for another process to let go of the file before ReadModelFileInUseError. */
const BUSY_TIMEOUT_MS = 1_000;
/** SQLite's answers for a file that is not a readable database: a model is derived, so it is started afresh. */
const UNREADABLE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);
/** Every model file has it: the schema version, and the position the model holds (batched-model-writes.ts). */
const META_SQL = 'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;';

export interface ReadModelFileOptions {
  /** What the file holds, for errors and warnings ("the mission tree model"). */
  readonly description: string;
  /** What the in-use error tells the operator to do ("run one issuer per DATA_DIR"). */
  readonly oneProcessHint: string;
  /** The model's tables and indexes (`CREATE … IF NOT EXISTS`); the `meta` table is added. */
  readonly schemaSql: string;
  /** Bumped when the tables change: a file of another version has its tables dropped and the model rebuilt from the store. */
  readonly schemaVersion: string;
  /** Told why a file was started afresh or emptied (the runner then rebuilds the model from the store). */
  readonly onRecreated?: (reason: string) => void;
}

/** Another process holds the model's file: two services on one DATA_DIR would each write the same model. */
export class ReadModelFileInUseError extends Error {
  constructor(path: string, options: Pick<ReadModelFileOptions, 'description' | 'oneProcessHint'>, errorOptions?: ErrorOptions) {
    super(`${options.description} ${path} is in use by another process: ${options.oneProcessHint}`, errorOptions);
    this.name = 'ReadModelFileInUseError';
  }
}

/**
 * Opens a read model's own SQLite file (ADR 0086, 0087), creating it, and takes it for this process: EXCLUSIVE
 * locking, held from the open on, so a second service on the same DATA_DIR fails at start with ReadModelFileInUseError
 * instead of meeting SQLITE_BUSY on a write later. A model is derived from the event store, so a file SQLite cannot
 * read (not a database, corrupt) is deleted and started afresh, and a file of another schema version has its tables
 * dropped and made again;
 * `onRecreated` says why. Either way the projection runner then rebuilds the model from the store. `:memory:` for tests.
 */
export function openReadModelFile(path: string, options: ReadModelFileOptions): Database.Database {
  if (path === ':memory:') return prepared(new Database(path), options);
  mkdirSync(dirname(path), { recursive: true });
  try {
    return prepared(new Database(path, { timeout: BUSY_TIMEOUT_MS }), options, path);
  } catch (error) {
    if (!UNREADABLE.has((error as { code?: string }).code ?? '')) throw error;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    options.onRecreated?.(`the file could not be read (${(error as Error).message}): started afresh`);
    return prepared(new Database(path, { timeout: BUSY_TIMEOUT_MS }), options, path);
  }
}

function prepared(db: Database.Database, options: ReadModelFileOptions, path?: string): Database.Database {
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
    db.exec(META_SQL);
    const version = (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined)?.value;
    if (version !== options.schemaVersion) {
      if (version !== undefined) options.onRecreated?.(`schema ${version} found, ${options.schemaVersion} expected: emptied`);
      // Dropped, not emptied: a table of another version may have other columns, which CREATE IF NOT EXISTS keeps.
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name != 'meta' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
      db.transaction(() => {
        for (const table of tables) db.exec(`DROP TABLE "${table.replaceAll('"', '""')}"`);
        db.exec('DELETE FROM meta;');
        db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(options.schemaVersion);
      })();
    }
    db.exec(options.schemaSql);
    return db;
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY' && path !== undefined) throw new ReadModelFileInUseError(path, options, { cause: error });
    throw error;
  }
}
