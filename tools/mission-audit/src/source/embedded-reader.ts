import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Position, RecordedEvent } from '@mission/event-store';
import { SourceUnavailableError, type AuditSource, type EventPage } from './audit-source.js';
import { storedPage } from './stored-page.js';
import { decodeWholeRecord, eventPageOf, type StoredRow } from './stored-record.js';
import { DEFAULT_READER_THREAD, threadedPages } from './threaded-pages.js';

const FILE_NAME = 'events.sqlite';
/** Rows per SQL query, and decoded events per page handed to the caller (see readAllPages). */
export interface ReaderPaging {
  readonly rows: number;
  readonly decoded: number;
  /** Rows per page from the reader thread (default THREAD_ROWS). */
  readonly threadRows?: number;
}
/** Larger pages than on one thread: fewer hand-overs between the threads (measured: ≈ 5 % faster than 256). */
const THREAD_ROWS = 1_024;
const PAGING: ReaderPaging = { rows: 5_000, decoded: 256 };

export interface EmbeddedReaderOptions {
  readonly lockTimeoutMs?: number;
  readonly paging?: ReaderPaging;
  /**
   * Read and hash the global order on a second thread (ADR 0037): the built `reader-thread.js` (default), or
   * false to do everything on the calling thread.
   */
  readonly readerThread?: URL | false;
}
type Row = [position: bigint, stream: string, revision: bigint, record: string];

/**
 * The embedded store's file opened read-only (SQLite `SQLITE_OPEN_READONLY`): the audit can never change
 * an event. Everything is read in one read transaction, a WAL snapshot: a running service goes on writing
 * meanwhile (it keeps its single-writer lock in a separate file, ADR 0003) and the audit sees the store as
 * it was when the first page was read, never half of a later commit. A service of a build that still
 * locked the store file exclusively makes the audit wait `lockTimeoutMs` and give up with a clear message.
 */
export function openEmbeddedReader(dataDir: string, options: EmbeddedReaderOptions = {}): AuditSource {
  const { lockTimeoutMs = 2_000, paging = PAGING, readerThread = DEFAULT_READER_THREAD } = options;
  const path = join(dataDir, FILE_NAME);
  if (!existsSync(path)) throw new SourceUnavailableError(`no embedded event store at ${path} (is --data-dir the service's DATA_DIR?)`);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: lockTimeoutMs });
    db.defaultSafeIntegers(true);
    // The snapshot starts with the first read and lasts until close.
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM streams').get();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new SourceUnavailableError(`${path} is locked by a running service that holds the file exclusively (a build before the writer lock file, ADR 0003): stop the service or audit a copy of DATA_DIR`);
    }
    throw new SourceUnavailableError(`${path} is not a readable event store: ${(error as Error).message}`);
  }
  const page = db.prepare('SELECT position, stream, revision, record FROM events WHERE position > ? ORDER BY position LIMIT ?').raw(true);
  const streamPage = db.prepare('SELECT position, stream, revision, record FROM events WHERE stream = ? AND revision > ? ORDER BY revision LIMIT ?').raw(true);
  const tombstone = db.prepare('SELECT tombstone FROM streams WHERE name = ?');
  const lastPosition = db.prepare('SELECT max(position) FROM events').pluck(true);
  async function* readAllPages(after?: Position): AsyncIterable<EventPage> {
    if (readerThread) {
      const through = (lastPosition.get() as bigint | null) ?? 0n;
      yield* threadedPages({ path, lockTimeoutMs, after: after?.commit ?? 0n, through, rows: paging.threadRows ?? THREAD_ROWS }, readerThread);
      return;
    }
    // The same pages as the reader thread's, cut and hashed here: a few hundred events at a time, so that they
    // die young (ADR 0036: a page of 5,000 decoded events made the garbage collector 26 % of CPU).
    let from = after?.commit ?? 0n;
    for (;;) {
      const rows = page.all(from, paging.decoded) as Row[];
      if (rows.length > 0) yield eventPageOf(storedPage(rows));
      if (rows.length < paging.decoded) return;
      from = rows[rows.length - 1]![0];
    }
  }
  return {
    description: `embedded store ${path} (read-only)`,
    async *readAll(after?: Position) {
      // Parsed whole: export and timeline hand events on as plain objects.
      let from = after?.commit ?? 0n;
      for (;;) {
        const rows = page.all(from, paging.rows) as Row[];
        for (const row of rows) yield decode(row, decodeWholeRecord);
        if (rows.length < paging.rows) return;
        from = rows[rows.length - 1]![0];
      }
    },
    readAllPages,
    async *readStream(streamName: string) {
      let from = -1n;
      for (;;) {
        const rows = streamPage.all(streamName, from, paging.rows) as Row[];
        for (const row of rows) yield decode(row, decodeWholeRecord);
        if (rows.length < paging.rows) return;
        from = rows[rows.length - 1]![2];
      }
    },
    isTombstoned: async (streamName) => (tombstone.get(streamName) as { tombstone: bigint } | undefined)?.tombstone === 1n,
    close: async () => {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

function decode([position, streamName, revision, text]: Row, how: (row: StoredRow, text: string) => RecordedEvent): RecordedEvent {
  return how({ streamName, revision, position: { commit: position, prepare: position } }, text);
}
