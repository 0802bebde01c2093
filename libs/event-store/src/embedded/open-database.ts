import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreStartupError } from '../port/errors.js';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';

export const EMBEDDED_FILE_NAME = 'events.sqlite';

export interface OpenDatabaseOptions {
  readonly dataDir: string;
  /** `FULL` (default) makes every acknowledged append survive power loss; `NORMAL` only a process crash. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait for another process's lock before giving up at start-up. */
  readonly lockTimeoutMs?: number;
}

/**
 * Opens (or creates) the store file, takes an exclusive lock for this process and checks the schema.
 * Every failure becomes an EventStoreStartupError naming the file, so an operator sees why the service
 * refused to start instead of a driver stack trace.
 */
export function openDatabase(options: OpenDatabaseOptions): { db: Database.Database; path: string } {
  const path = join(options.dataDir, EMBEDDED_FILE_NAME);
  try {
    mkdirSync(options.dataDir, { recursive: true });
  } catch (error) {
    throw new EventStoreStartupError(`cannot create data directory ${options.dataDir}: ${(error as Error).message}`, { cause: error });
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: options.lockTimeoutMs ?? 2000 });
    db.defaultSafeIntegers(true);
    // EXCLUSIVE: one process per file. Subscriptions are woken in-process, and two writers would each
    // believe they are the single replica.
    db.pragma('locking_mode = EXCLUSIVE');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`journal_mode is ${String(mode)}, WAL required`);
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    // Erasure (PS spec 3 rule 5, ADR 0019): deleted rows are overwritten with zeros instead of lingering in free
    // space of the file; after a tombstone the WAL is checkpointed and truncated (EmbeddedEventStore).
    db.pragma('secure_delete = ON');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    db.exec(SCHEMA_SQL);
    checkSchemaVersion(db, path);
    return { db, path };
  } catch (error) {
    db?.close();
    if (error instanceof EventStoreStartupError) throw error;
    throw new EventStoreStartupError(describeOpenFailure(path, error), { cause: error });
  }
}

function checkSchemaVersion(db: Database.Database, path: string): void {
  const row = db.prepare('SELECT value FROM store_meta WHERE key = ?').get('schema_version') as { value: string } | undefined;
  if (!row) {
    db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
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
