import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await turn();
}
const event = (n: number) => ({ type: 'Happened', data: { n, text: 'x'.repeat(200) } });

/**
 * ADR 0071 addendum: under steady writes the worker's checkpoints never find the whole WAL in the database file
 * (commits land while they run), and SQLite starts the WAL again only from such a state; so once a checkpoint found
 * `walFramesBeforeRestart` frames, the next commit finishes it on the store's own connection and the one after
 * starts the WAL from its beginning. Frames left behind are staged deterministically with a reader's snapshot: a
 * checkpoint cannot copy frames newer than a snapshot still in use.
 */
describe('embedded store: the WAL starts again under steady writes (ADR 0071 addendum)', () => {
  let dataDir: string;
  let path: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-walrestart-'));
    path = join(dataDir, 'events.sqlite');
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Appends `count` one-event commits, then stages a worker checkpoint that leaves the newest `behind` commits in the WAL. */
  async function checkpointLeavingFramesBehind(store: EmbeddedEventStore, count: number, behind: number): Promise<void> {
    for (let n = 0; n < count - behind; n++) await store.appendToStream(`grant-${n % 7}`, [event(n)]);
    const reader = new Database(path, { readonly: true });
    try {
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM events').get();
      for (let n = count - behind; n < count; n++) await store.appendToStream(`grant-${n % 7}`, [event(n)]);
      await store.checkpointer.request();
      reader.prepare('COMMIT').run();
    } finally {
      reader.close();
    }
  }

  it('finishes a checkpoint that left frames behind on the store connection, and the WAL starts again', async () => {
    const store = await EmbeddedEventStore.open({ dataDir, checkpointEveryRows: 1_000_000, walFramesBeforeRestart: 64 });
    try {
      await until(() => store.checkpointer.active);
      await checkpointLeavingFramesBehind(store, 60, 10);
      const left = store.checkpointer.lastResult!;
      expect(left.log).toBeGreaterThanOrEqual(64);
      expect(left.checkpointed).toBeLessThan(left.log);

      await store.appendToStream('grant-0', [event(60)]); // finishes the checkpoint on the store's connection
      expect(store.checkpointer.finishedOnStore).toBe(1);
      expect(store.checkpointer.lastResult!.checkpointed).toBe(store.checkpointer.lastResult!.log);
      await store.appendToStream('grant-0', [event(61)]); // starts the WAL again

      await store.checkpointer.request();
      expect(store.checkpointer.lastResult!.log).toBeLessThan(left.log / 4);
      expect((await store.appendToStream('grant-0', [event(62)])).nextExpectedRevision).toBeGreaterThan(0n);
    } finally {
      await store.close();
    }
    const reopened = await EmbeddedEventStore.open({ dataDir });
    try {
      let count = 0;
      for await (const recorded of reopened.readAll()) count += recorded ? 1 : 0;
      expect(count).toBe(63);
    } finally {
      await reopened.close();
    }
  });

  it('leaves a WAL below walFramesBeforeRestart to the worker', async () => {
    const store = await EmbeddedEventStore.open({ dataDir, checkpointEveryRows: 1_000_000, walFramesBeforeRestart: 1_000_000 });
    try {
      await until(() => store.checkpointer.active);
      await checkpointLeavingFramesBehind(store, 60, 10);
      const left = store.checkpointer.lastResult!;
      expect(left.checkpointed).toBeLessThan(left.log);
      await store.appendToStream('grant-0', [event(60)]);
      await store.appendToStream('grant-0', [event(61)]);
      await store.checkpointer.request();
      expect(store.checkpointer.finishedOnStore).toBe(0);
      expect(store.checkpointer.lastResult!.log).toBeGreaterThan(left.log);
    } finally {
      await store.close();
    }
  });

  it('finishes first when rows committed during the checkpoint would ask for the next one at once', async () => {
    // A worker that finds a large WAL every time; rows committed while it runs would make it run again at once.
    const source = `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (message) => {
        if (message === 'close') { parentPort.close(); return; }
        parentPort.postMessage({ ok: true, busy: 0, log: 100, checkpointed: 100 });
      });
      parentPort.postMessage({ ready: true });`;
    const pragmas: string[] = [];
    const connection = { pragma: (sql: string) => (pragmas.push(sql), sql.startsWith('wal_checkpoint') ? [{ busy: 0n, log: 7n, checkpointed: 7n }] : []) };
    const checkpointer = new WalCheckpointer(connection, path, 10, () => undefined, source, 50);
    checkpointer.start();
    await until(() => checkpointer.active);
    const answered = checkpointer.request();
    checkpointer.committed(20); // while it runs
    await answered;
    checkpointer.committed(1);
    expect(pragmas).toEqual(['wal_autocheckpoint = 0', 'wal_checkpoint(PASSIVE)']);
    expect(checkpointer.finishedOnStore).toBe(1);
    expect(checkpointer.lastResult).toEqual({ busy: 0, log: 7, checkpointed: 7 });
    await checkpointer.stop();
  });

  it('keeps the WAL file small under steady concurrent writes', async () => {
    const store = await EmbeddedEventStore.open({ dataDir, checkpointEveryRows: 100, walFramesBeforeRestart: 256 });
    try {
      await until(() => store.checkpointer.active);
      let next = 0;
      let largest = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 4_000) {
            const n = next++;
            await store.appendToStream(`grant-${n % 97}`, [event(n)]);
            if (n % 250 === 0) {
              largest = Math.max(largest, statSync(`${path}-wal`).size);
              // This writer waits for the worker's checkpoint while the other seven go on writing: however slow the
              // machine's fsync, checkpoints complete during the run and not only after the last row.
              await store.checkpointer.request();
            }
          }
        }),
      );
      // Not `finishedOnStore > 0`: when every worker checkpoint happens to find the whole WAL copied (a machine where
      // no commit lands while one runs; a CI run once had no finishing at all), SQLite starts the WAL again by itself and nothing is left to
      // finish. The size is the rule; the finishing itself is staged deterministically in the first test.
      // 256 frames of 4 KiB are 1 MiB; without the restart the WAL passed 10 MiB on these 4,000 rows.
      expect(largest).toBeLessThan(4 * 2 ** 20);
    } finally {
      await store.close();
    }
    // 4,000 fsynced commits: 24 s of the default 30 s on a disk with 20 ms fsyncs.
  }, 90_000);
});
