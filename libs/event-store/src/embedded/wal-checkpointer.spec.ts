import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../port/event-store.js';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await turn();
}
async function readAll(store: EmbeddedEventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readAll()) events.push(event);
  return events;
}
const event = (n: number) => ({ type: 'Happened', data: { n } });

/**
 * ADR 0071: WAL checkpoints run in a worker thread with its own connection, never inside a COMMIT on the event
 * loop; nothing written is lost to them, and if the worker cannot do the work SQLite's own checkpoints come back.
 */
describe('embedded store: WAL checkpoints off the event loop (ADR 0071)', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'es-ckpt-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("the store's connection never checkpoints while the worker does; the worker checkpoints after every N rows", async () => {
    const store = await EmbeddedEventStore.open({ dataDir, checkpointEveryRows: 50 });
    try {
      await until(() => store.checkpointer.active);
      expect(Number((store as unknown as { db: { pragma(s: string, o: object): unknown } }).db.pragma('wal_autocheckpoint', { simple: true }))).toBe(0);
      await store.appendToStream('grant-a', Array.from({ length: 40 }, (_, n) => event(n)));
      expect(store.checkpointer.completed).toBe(0);
      await store.appendToStream('grant-a', Array.from({ length: 20 }, (_, n) => event(40 + n)));
      await until(() => store.checkpointer.completed >= 1);
      const result = store.checkpointer.lastResult!;
      expect(result.busy).toBe(0);
      expect(result.log).toBeGreaterThan(0);
      expect(result.checkpointed).toBe(result.log);
    } finally {
      await store.close();
    }
  });

  it('loses nothing written while checkpoints run, across a close and a reopen', async () => {
    const store = await EmbeddedEventStore.open({ dataDir, checkpointEveryRows: 10 });
    try {
      await until(() => store.checkpointer.active);
      // Waves of commits: each asks for a checkpoint, and the next wave is written while it may still run.
      for (let wave = 0; wave < 8; wave++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendToStream(`grant-${(wave * 50 + i) % 37}`, [event(wave * 50 + i)])));
      }
      await until(() => store.checkpointer.completed >= 1);
    } finally {
      await store.close();
    }
    const reopened = await EmbeddedEventStore.open({ dataDir });
    try {
      const events = await readAll(reopened);
      expect(events.map((recorded) => (recorded.data as { n: number }).n).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, n) => n));
    } finally {
      await reopened.close();
    }
  });

  it("gives the work back to SQLite's own checkpoints when the worker cannot open the store", async () => {
    const pragmas: string[] = [];
    const failures: string[] = [];
    const checkpointer = new WalCheckpointer({ pragma: (source) => void pragmas.push(source) }, join(dataDir, 'missing', 'events.sqlite'), 10, (reason) => failures.push(reason));
    checkpointer.start();
    await until(() => failures.length > 0);
    expect(checkpointer.active).toBe(false);
    expect(pragmas).toEqual(['wal_autocheckpoint = 1000']);
    expect(failures[0]).toMatch(/checkpoint worker stopped/);
    await checkpointer.stop();
  });

  it('a busy lock or a passing failure is retried; only a worker failing three times in a row hands the work back', async () => {
    const dbPath = join(dataDir, 'events.sqlite');
    // A worker whose checkpoints answer: busy, failed, ok, then failed for good.
    const source = `
      const { parentPort } = require('node:worker_threads');
      const answers = [{ ok: false, busy: 1, message: 'busy' }, { ok: false, busy: 0, message: 'passing' }, { ok: true, busy: 0, log: 1, checkpointed: 1 }];
      parentPort.on('message', (message) => {
        if (message === 'close') { parentPort.close(); return; }
        parentPort.postMessage(answers.shift() ?? { ok: false, busy: 0, message: 'broken' });
      });
      parentPort.postMessage({ ready: true });`;
    const pragmas: string[] = [];
    const failures: string[] = [];
    const checkpointer = new WalCheckpointer({ pragma: (sql) => void pragmas.push(sql) }, dbPath, 1_000_000, (reason) => failures.push(reason), source);
    checkpointer.start();
    await until(() => checkpointer.active);
    for (let attempt = 0; attempt < 3; attempt++) await checkpointer.request();
    expect(checkpointer.completed).toBe(1);
    expect(checkpointer.active).toBe(true);
    for (let attempt = 0; attempt < 3; attempt++) await checkpointer.request();
    expect(checkpointer.active).toBe(false);
    expect(failures).toEqual([expect.stringMatching(/3 times in a row/)]);
    expect(pragmas).toEqual(['wal_autocheckpoint = 0', 'wal_autocheckpoint = 1000']);
    await checkpointer.stop();
  });

  it('a store closed before its worker is ready stops the worker too', async () => {
    const store = await EmbeddedEventStore.open({ dataDir });
    await store.close();
    expect(store.checkpointer.active).toBe(false);
    const reopened = await EmbeddedEventStore.open({ dataDir });
    await reopened.close();
  });
});
