import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreStartupError } from '../port/errors.js';
import { MIGRATE_1_TO_2_SQL, MIGRATE_2_TO_3_SQL, SCHEMA_SQL, SCHEMA_VERSION, TYPE_INDEX_SQL } from './schema.js';

export const EMBEDDED_FILE_NAME = 'events.sqlite';
/**
 * The single-writer lock (ADR 0003): a tiny SQLite file this process holds in EXCLUSIVE locking mode for as
 * long as the store is open. The kernel releases it when the process dies, so a crash never leaves a stale
 * lock, and the store file itself stays readable by `mission-audit` (read-only, WAL snapshot) meanwhile.
 */
export const WRITER_LOCK_FILE_NAME = 'events.writer-lock';

/** What a WAL file is truncated to when SQLite starts it again (`journal_size_limit`): 64 MiB. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 2 ** 20;

export interface OpenDatabaseOptions {
  readonly dataDir: string;
  /**
   * `FULL` (default) makes every acknowledged append survive power loss (the WAL is fsynced before the answer,
   * off the event loop: ADR 0026); `NORMAL` only a process crash.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait for another process's lock before giving up at start-up. */
  readonly lockTimeoutMs?: number;
}

export interface OpenedDatabase {
  readonly db: Database.Database;
  readonly path: string;
  /** Held until the store closes; close it after `db`. */
  readonly writerLock: Database.Database;
}

/**
 * Opens (or creates) the store file after taking the single-writer lock, and checks the schema.
 * Every failure becomes an EventStoreStartupError naming the file, so an operator sees why the service
 * refused to start instead of a driver stack trace.
 */
export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  const path = join(options.dataDir, EMBEDDED_FILE_NAME);
  try {
    mkdirSync(options.dataDir, { recursive: true });
  } catch (error) {
    throw new EventStoreStartupError(`cannot create data directory ${options.dataDir}: ${(error as Error).message}`, { cause: error });
  }
  const writerLock = takeWriterLock(options.dataDir, path, options.lockTimeoutMs ?? 2000);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: options.lockTimeoutMs ?? 2000 });
    db.defaultSafeIntegers(true);
    // Normal (not EXCLUSIVE) locking on the store file itself: the WAL index lives in the `-shm` file, so a
    // read-only auditor in another process can read a consistent snapshot while this process writes.
    // Single writer: the writer lock above, not this file's lock.
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`journal_mode is ${String(mode)}, WAL required`);
    // COMMIT never fsyncs on the event loop: with `synchronous` FULL (the default of the option) the store
    // fsyncs the WAL on the thread pool before it answers (wal-sync.ts, ADR 0026); NORMAL skips that.
    db.pragma('synchronous = NORMAL');
    // A WAL that a burst (or a reader's snapshot) made larger is cut back to this size when it starts again (ADR 0071).
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // Erasure (PS spec 3 rule 5, ADR 0019): deleted rows are overwritten with zeros instead of lingering in free
    // space of the file; after a tombstone the WAL is checkpointed and truncated (EmbeddedEventStore).
    db.pragma('secure_delete = ON');
    // Statement journals in memory (ADR 0084): every queued write of a group commit runs in its own savepoint, and a
    // savepoint's journal of pages it changed spilled to a new temporary file once past 64 KiB — a cascade batch
    // always did, so each opened, wrote and deleted a file (≈ 30 % of the process's syscalls in a 10k cascade), and
    // page images of erased rows went to temporary files on disk.
    db.pragma('temp_store = MEMORY');
    db.exec(SCHEMA_SQL);
    checkSchemaVersion(db, path);
    db.exec(TYPE_INDEX_SQL);
    return { db, path, writerLock };
  } catch (error) {
    db?.close();
    writerLock.close();
    if (error instanceof EventStoreStartupError) throw error;
    throw new EventStoreStartupError(describeOpenFailure(path, error), { cause: error });
  }
}

/**
 * One process per DATA_DIR: subscriptions are woken in-process and process managers assume a single replica,
 * so a second service on the same directory must fail at start. The lock is SQLite's own EXCLUSIVE lock on a
 * separate file (POSIX advisory locks: released by the kernel when the holder exits, even by SIGKILL).
 */
function takeWriterLock(dataDir: string, storePath: string, timeoutMs: number): Database.Database {
  const lockPath = join(dataDir, WRITER_LOCK_FILE_NAME);
  let lock: Database.Database | undefined;
  try {
    lock = new Database(lockPath, { timeout: timeoutMs });
    lock.pragma('locking_mode = EXCLUSIVE');
    // A write transaction takes the EXCLUSIVE lock; in EXCLUSIVE locking mode it is kept after COMMIT.
    lock.exec('CREATE TABLE IF NOT EXISTS writer (pid INTEGER); BEGIN EXCLUSIVE; DELETE FROM writer; COMMIT;');
    return lock;
  } catch (error) {
    lock?.close();
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new EventStoreStartupError(`${storePath} is locked by another process (another instance on the same DATA_DIR? its writer lock ${lockPath} is held): ${(error as Error).message}`, { cause: error });
    }
    throw new EventStoreStartupError(describeOpenFailure(lockPath, error), { cause: error });
  }
}

function checkSchemaVersion(db: Database.Database, path: string): void {
  const row = db.prepare('SELECT value FROM store_meta WHERE key = ?').get('schema_version') as { value: string } | undefined;
  if (!row) {
    db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
    return;
  }
  const migrations: Record<string, string> = { '1': MIGRATE_1_TO_2_SQL + MIGRATE_2_TO_3_SQL, '2': MIGRATE_2_TO_3_SQL };
  const migration = migrations[row.value];
  if (migration !== undefined) {
    // One transaction: a crash mid-migration leaves the old schema intact, and the next start migrates again.
    db.transaction(() => {
      db.exec(migration);
      db.prepare('UPDATE store_meta SET value = ? WHERE key = ?').run(String(SCHEMA_VERSION), 'schema_version');
    })();
    return;
  }
  if (row.value !== String(SCHEMA_VERSION)) {
    throw new EventStoreStartupError(`${path} has schema version ${row.value}; this build reads version ${SCHEMA_VERSION}`);
  }
}

function describeOpenFailure(path: string, error: unknown): string {
  const code = (error as { code?: string }).code ?? '';
  const detail = (error as Error).message;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return `${path} is locked by another process (another instance on the same DATA_DIR?): ${detail}`;
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return `${path} is not a readable event-store database (corrupt or not SQLite): ${detail}`;
  }
  if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM') {
    return `${path} cannot be opened for writing: ${detail}`;
  }
  return `${path} cannot be opened: ${detail}`;
}
