import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { EMBEDDED_FILE_NAME } from './open-database.js';

/** Every byte SQLite keeps for the store: the main file, its WAL and the shared-memory index. */
function fileBytes(dataDir: string): Buffer {
  const path = join(dataDir, EMBEDDED_FILE_NAME);
  return Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

describe('embedded store erasure (PS spec 3 rule 5, 1 item 7; ADR 0019)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-erasure-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('spec 3 rule 5: after a tombstone the deleted event bytes are in neither the database file nor its WAL — while the store is open and after a restart', async () => {
    const store = await EmbeddedEventStore.open({ dataDir });
    const secret = `secret-description-${randomBytes(12).toString('hex')}`;
    // Neighbours on the same pages, which must survive.
    for (let index = 0; index < 50; index++) await store.appendToStream(`keep-${index}`, [{ type: 'Kept', data: { n: index, text: `kept-${index}` } }]);
    await store.appendToStream('psblob-abc', [{ type: 'MissionBlobStored', data: { blob: Buffer.from(secret).toString('base64url'), plain: secret } }]);
    await store.appendToStream('keep-last', [{ type: 'Kept', data: { text: 'kept-last' } }]);
    // The test means something only if the bytes were on disk before.
    expect(fileBytes(dataDir).includes(secret)).toBe(true);

    await store.tombstoneStream('psblob-abc');
    const open = fileBytes(dataDir);
    expect(open.includes(secret)).toBe(false);
    expect(open.includes(Buffer.from(secret).toString('base64url'))).toBe(false);
    expect(open.includes('kept-last') || open.includes('kept-49')).toBe(true);

    await store.close();
    expect(fileBytes(dataDir).includes(secret)).toBe(false);
    const reopened = await EmbeddedEventStore.open({ dataDir });
    const kept: unknown[] = [];
    for await (const event of reopened.readStream('keep-last')) kept.push(event.data);
    expect(kept).toEqual([{ text: 'kept-last' }]);
    await reopened.close();
  });
});
