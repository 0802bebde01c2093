import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { ReaderThreadData } from './reader-thread-protocol.js';
import { storedPage, type StoredRow } from './stored-page.js';

/**
 * The embedded store's reader thread (ADR 0037): reads the global order in its own read-only connection, cuts
 * and hashes each record's stored bytes (stored-page.ts) and transfers the page to the main thread, which parses
 * what the checks need and runs them. The main thread checks exactly the bytes hashed here: it gets these very
 * buffers and never reads the rows itself.
 *
 * One page is read per request from the main thread, which asks a few pages ahead: memory stays bounded.
 */
const { path, lockTimeoutMs, after, through, rows: pageRows } = workerData as ReaderThreadData;
const db = new Database(path, { readonly: true, fileMustExist: true, timeout: lockTimeoutMs });
db.defaultSafeIntegers(true);
db.exec('BEGIN');
const page = db.prepare('SELECT position, stream, revision, record FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?').raw(true);
let from = after;
let finished = false;

parentPort!.on('message', () => {
  if (finished) return;
  try {
    const rows = page.all(from, through, pageRows) as StoredRow[];
    if (rows.length > 0) {
      const read = storedPage(rows);
      parentPort!.postMessage(read, [read.records, read.layout.buffer, read.positions.buffer, read.revisions.buffer] as ArrayBuffer[]);
      from = rows[rows.length - 1]![0];
    }
    if (rows.length < pageRows) {
      finished = true;
      db.close();
      parentPort!.postMessage({ done: true });
    }
  } catch (error) {
    finished = true;
    parentPort!.postMessage({ error: (error as Error).message });
  }
});
