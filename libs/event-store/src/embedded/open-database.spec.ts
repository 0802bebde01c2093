import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './open-database.js';

describe('openDatabase: the connection settings the store relies on', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'es-open-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('WAL, synchronous NORMAL (fsync on the thread pool, ADR 0026), secure_delete (ADR 0019), statement journals in memory (ADR 0084)', () => {
    const { db, writerLock } = openDatabase({ dataDir });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1n);
      expect(db.pragma('secure_delete', { simple: true })).toBe(1n);
      // 2 = MEMORY: a savepoint's journal never spills to a temporary file.
      expect(db.pragma('temp_store', { simple: true })).toBe(2n);
    } finally {
      db.close();
      writerLock.close();
    }
  });
});
