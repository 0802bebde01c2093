import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { EMBEDDED_FILE_NAME } from './open-database.js';

/** ADR 0003: the service writes while a read-only reader (mission-audit) holds a WAL snapshot of the same file. */
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'es-live-reader-'));
  dirs.push(dir);
  return dir;
};

function fileBytes(dataDir: string): Buffer {
  const path = join(dataDir, EMBEDDED_FILE_NAME);
  return Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What mission-audit does: read-only, one read transaction. */
function snapshotReader(dataDir: string): Database.Database {
  const reader = new Database(join(dataDir, EMBEDDED_FILE_NAME), { readonly: true, fileMustExist: true, timeout: 100 });
  reader.exec('BEGIN');
  return reader;
}

describe('embedded store with a read-only snapshot reader (ADR 0003, issue 14)', () => {
  it('a reader opens and reads the store while it is open, sees its snapshot only, and never blocks appends', async () => {
    const dir = freshDir();
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      await store.appendToStream('mission-a', [{ type: 'Created', data: { n: 1 } }]);
      const reader = snapshotReader(dir);
      expect((reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(1);
      await store.appendToStream('mission-a', [{ type: 'Changed', data: { n: 2 } }]);
      await store.appendToStream('mission-b', [{ type: 'Created', data: { n: 3 } }]);
      expect((reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(1);
      reader.exec('COMMIT');
      expect((reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(3);
      reader.close();
    } finally {
      await store.close();
    }
  });

  it('spec 3 rule 5 (ADR 0019) with a live reader: a tombstone does not wait for the reader, and the erased bytes leave the WAL once its snapshot ends', async () => {
    const dir = freshDir();
    // A checkpoint that waited for the reader would hold this write for a minute, past the test's timeout.
    const store = await EmbeddedEventStore.open({ dataDir: dir, lockTimeoutMs: 60_000 });
    try {
      const secret = 'secret-blob-bytes-0123456789';
      await store.appendToStream('psblob-x', [{ type: 'MissionBlobStored', data: { plain: secret } }]);
      const reader = snapshotReader(dir);
      reader.prepare('SELECT count(*) FROM events').get();
      await store.tombstoneStream('psblob-x');
      await store.appendToStream('keep-1', [{ type: 'Kept', data: { n: 1 } }]);
      reader.exec('COMMIT');
      reader.close();
      await until(() => !fileBytes(dir).includes(secret), 'the erased bytes to leave the file and its WAL');
    } finally {
      await store.close();
    }
    expect(fileBytes(dir).includes('secret-blob-bytes')).toBe(false);
  }, 30_000);
});

describe('erasure across a restart with a live reader (ADR 0003, 0019)', () => {
  it('spec 3 rule 5: a store stopped while a reader held its snapshot truncates the WAL with the erased bytes when it starts again', async () => {
    const dir = freshDir();
    const secret = 'secret-blob-restart-0123456789';
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    await store.appendToStream('psblob-y', [{ type: 'MissionBlobStored', data: { plain: secret } }]);
    const reader = snapshotReader(dir);
    reader.prepare('SELECT count(*) FROM events').get();
    await store.tombstoneStream('psblob-y');
    await store.close();
    reader.exec('COMMIT');
    reader.close();
    const reopened = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      expect(fileBytes(dir).includes(secret)).toBe(false);
    } finally {
      await reopened.close();
    }
  });
});

describe('stored form of an event (ADR 0005)', () => {
  it('data and metadata are stored in RFC 8785 form, so replaying the hash chain needs no re-sorting; the values read back are unchanged', async () => {
    const dir = freshDir();
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    try {
      const data = { b: 1, a: { d: [{ z: 1, y: 'é' }], c: 2 }, '10': true, '9': null };
      await store.appendToStream('mission-s', [{ type: 'Created', data, metadata: { z: 'm', a: 'n' } }]);
      const reader = new Database(join(dir, EMBEDDED_FILE_NAME), { readonly: true });
      const { record } = reader.prepare('SELECT record FROM events').get() as { record: string };
      reader.close();
      expect(record).toContain('"metadata":{"a":"n","z":"m"},"data":{"10":true,"9":null,"a":{"c":2,"d":[{"y":"é","z":1}]},"b":1}');
      const read: unknown[] = [];
      for await (const event of store.readStream('mission-s')) read.push(event.data);
      expect(read).toEqual([data]);
    } finally {
      await store.close();
    }
  });
});
