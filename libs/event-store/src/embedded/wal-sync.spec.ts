import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreUnavailableError } from '../port/errors.js';
import type { RecordedEvent } from '../port/event-store.js';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { WalSync, walFileSync } from './wal-sync.js';

/** A sync whose completions the test hands out one at a time. */
function gatedSync() {
  const pending: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  return {
    calls: () => pending.length,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    finish: (index: number) => pending[index]!.resolve(),
    fail: (index: number, error: Error) => pending[index]!.reject(error),
  };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));
const settledState = async (promise: Promise<unknown>) => {
  let state = 'pending';
  promise.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await turn();
  return state;
};

describe('WalSync (ADR 0026: fsync off the event loop, group fsync, fail closed)', () => {
  it('answers a commit only after an fsync that started after it; commits during an fsync share the next one', async () => {
    const gate = gatedSync();
    const wal = new WalSync(gate.sync);
    const first = wal.committed();
    expect(gate.calls()).toBe(1);
    const second = wal.committed();
    const third = wal.committed();
    expect(gate.calls()).toBe(1); // one fsync at a time
    expect(await settledState(first)).toBe('pending');
    gate.finish(0);
    expect(await settledState(first)).toBe('resolved');
    // The first fsync started before commits 2 and 3: they wait for a second one, which covers both.
    expect(await settledState(second)).toBe('pending');
    expect(gate.calls()).toBe(2);
    gate.finish(1);
    expect([await settledState(second), await settledState(third)]).toEqual(['resolved', 'resolved']);
    expect(gate.calls()).toBe(2);
  });

  it('says whether everything committed is durable, without a promise when it is', async () => {
    const gate = gatedSync();
    const wal = new WalSync(gate.sync);
    expect(wal.durable()).toBeUndefined();
    void wal.committed();
    const durable = wal.durable()!;
    expect(await settledState(durable)).toBe('pending');
    gate.finish(0);
    expect(await settledState(durable)).toBe('resolved');
    expect(wal.durable()).toBeUndefined();
  });

  it('fails closed when an fsync fails: waiting and later commits and reads are refused', async () => {
    const gate = gatedSync();
    const wal = new WalSync(gate.sync);
    const waiting = wal.committed();
    gate.fail(0, new Error('EIO'));
    await expect(waiting).rejects.toBeInstanceOf(EventStoreUnavailableError);
    await expect(wal.committed()).rejects.toThrow(/fsync of the write-ahead log failed/);
    await expect(wal.durable()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(wal.failed).toBeInstanceOf(EventStoreUnavailableError);
  });

  it('syncs the named WAL file (a missing file is an error, not a silent success)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
    try {
      await expect(walFileSync(join(dir, 'absent-wal')).sync()).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded store: nothing is answered, read or delivered before its WAL is on disk (ADR 0026)', () => {
  let dataDir: string;
  let store: EmbeddedEventStore;
  let hold: { promise: Promise<void>; release: () => void } | undefined;
  let syncs: number;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-walsync-'));
    syncs = 0;
    hold = undefined;
    store = await EmbeddedEventStore.open({
      dataDir,
      beforeWalSync: async () => {
        syncs += 1;
        await hold?.promise;
      },
    });
  });
  afterEach(async () => {
    hold?.release();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function holdSyncs(): void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    hold = { promise, release };
  }

  it('holds the append, other readers and live subscribers while the fsync is held, and releases all of them after it', async () => {
    const subscription = store.subscribeToAll({ filter: { streamCategories: ['order'] } });
    const delivered: RecordedEvent[] = [];
    const following = (async () => {
      for await (const event of subscription) {
        delivered.push(event);
        break;
      }
    })();
    await turn();
    holdSyncs();
    const append = store.appendToStream('order-1', [{ type: 'Placed', data: { n: 1 } }]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(await settledState(append)).toBe('pending');
    // Committed in SQLite, not yet durable: a reader waits instead of seeing it.
    const read = (async () => {
      const events: RecordedEvent[] = [];
      for await (const event of store.readStream('order-1')) events.push(event);
      return events;
    })();
    const revision = store.streamRevision('order-1');
    expect([await settledState(read), await settledState(revision)]).toEqual(['pending', 'pending']);
    expect(delivered).toEqual([]);
    hold!.release();
    await append;
    expect((await read).map((event) => event.data['n'])).toEqual([1]);
    expect(await revision).toBe(0n);
    await following;
    expect(delivered.map((event) => event.streamName)).toEqual(['order-1']);
  });

  it('does not fsync at all with synchronous NORMAL', async () => {
    const normalDir = mkdtempSync(join(tmpdir(), 'es-walsync-normal-'));
    let normalSyncs = 0;
    const normal = await EmbeddedEventStore.open({ dataDir: normalDir, synchronous: 'NORMAL', beforeWalSync: async () => void normalSyncs++ });
    try {
      await normal.appendToStream('order-1', [{ type: 'Placed', data: {} }]);
      expect(normalSyncs).toBe(0);
    } finally {
      await normal.close();
      rmSync(normalDir, { recursive: true, force: true });
    }
    await store.appendToStream('order-1', [{ type: 'Placed', data: {} }]);
    expect(syncs).toBe(1);
  });
});
