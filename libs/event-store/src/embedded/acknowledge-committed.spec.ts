import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrongExpectedRevisionError } from '../port/errors.js';
import type { RecordedEvent } from '../port/event-store.js';
import { EmbeddedEventStore } from './embedded-event-store.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));
async function settledState(promise: Promise<unknown> | undefined): Promise<string> {
  if (promise === undefined) return 'none';
  let state = 'pending';
  promise.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await turn();
  return state;
}
async function readAllOf(store: EmbeddedEventStore, stream: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) events.push(event);
  return events;
}

/**
 * ADR 0067: an append with `acknowledge: 'committed'` is answered at COMMIT (its expected revision decided), is
 * durable with the next fsync, and `whenDurable()` is what an answer waits for. Fsyncs are held by the test
 * (`beforeWalSync`), so every interleaving below is deterministic.
 */
describe("embedded store: acknowledge 'committed' and whenDurable (ADR 0067)", () => {
  let dataDir: string;
  let store: EmbeddedEventStore;
  let held: Array<() => void>;
  let holding: boolean;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-ack-'));
    held = [];
    holding = false;
    store = await EmbeddedEventStore.open({ dataDir, beforeWalSync: () => (holding ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve()) });
  });
  afterEach(async () => {
    holding = false;
    held.splice(0).forEach((release) => release());
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const waitForHeldSync = async () => {
    while (held.length === 0) await turn();
  };
  const releaseSyncs = () => {
    holding = false;
    held.splice(0).forEach((release) => release());
  };

  it('answers a committed-acknowledged append while its fsync is held; whenDurable waits for that fsync', async () => {
    holding = true;
    const append = store.appendToStream('clientjti-a', [{ type: 'Used', data: {} }], { expectedRevision: 'no_stream', acknowledge: 'committed' });
    expect(await settledState(append)).toBe('resolved');
    await waitForHeldSync();
    const durable = store.whenDurable();
    expect(await settledState(durable)).toBe('pending');
    releaseSyncs();
    await durable;
    expect(store.whenDurable()).toBeUndefined();
  });

  it('a durable append in the same commit is still answered only after the fsync', async () => {
    holding = true;
    const quick = store.appendToStream('clientjti-b', [{ type: 'Used', data: {} }], { acknowledge: 'committed' });
    const slow = store.appendToStream('order-1', [{ type: 'Placed', data: {} }]);
    expect(await settledState(quick)).toBe('resolved');
    await waitForHeldSync();
    expect(await settledState(slow)).toBe('pending');
    releaseSyncs();
    await slow;
  });

  it('replay protection is decided at commit: a second use of the same record is refused before the first is on disk', async () => {
    holding = true;
    const first = store.appendToStream('dpopjti-x', [{ type: 'Used', data: {} }], { expectedRevision: 'no_stream', acknowledge: 'committed' });
    const replay = store.appendToStream('dpopjti-x', [{ type: 'Used', data: {} }], { expectedRevision: 'no_stream', acknowledge: 'committed' });
    const replayState = settledState(replay);
    expect(await settledState(first)).toBe('resolved');
    expect(await replayState).toBe('rejected');
    await expect(replay).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(held.length).toBe(1); // both answered while the fsync of their commit is still held
    // And a replay after the first commit (not the same batch) too.
    await expect(store.appendToStream('dpopjti-x', [{ type: 'Used', data: {} }], { expectedRevision: 'no_stream', acknowledge: 'committed' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it('a read of a stream with a commit not yet on disk waits; a read of any other stream does not', async () => {
    await store.appendToStream('order-2', [{ type: 'Placed', data: { n: 1 } }]);
    holding = true;
    await store.appendToStream('clientjti-c', [{ type: 'Used', data: {} }], { acknowledge: 'committed' });
    await waitForHeldSync();
    const pendingRead = readAllOf(store, 'clientjti-c');
    const pendingRevision = store.streamRevision('clientjti-c');
    const otherRead = readAllOf(store, 'order-2');
    expect(await settledState(otherRead)).toBe('resolved');
    expect((await otherRead).map((event) => event.data['n'])).toEqual([1]);
    expect(await settledState(store.streamRevision('order-2'))).toBe('resolved');
    expect([await settledState(pendingRead), await settledState(pendingRevision)]).toEqual(['pending', 'pending']);
    releaseSyncs();
    expect((await pendingRead).map((event) => event.type)).toEqual(['Used']);
    expect(await pendingRevision).toBe(0n);
  });

  it('live subscribers are handed a committed-acknowledged event only once it is on disk', async () => {
    const subscription = store.subscribeToAll({ filter: { streamCategories: ['clientjti'] } });
    const delivered: RecordedEvent[] = [];
    const following = (async () => {
      for await (const event of subscription) {
        delivered.push(event);
        break;
      }
    })();
    await turn();
    holding = true;
    await store.appendToStream('clientjti-d', [{ type: 'Used', data: {} }], { acknowledge: 'committed' });
    await waitForHeldSync();
    await turn();
    expect(delivered).toEqual([]);
    releaseSyncs();
    await following;
    expect(delivered.map((event) => event.streamName)).toEqual(['clientjti-d']);
  });

  it('a stream written again by a later commit stays pending until that commit is on disk too', async () => {
    holding = true;
    await store.appendToStream('clientjti-e', [{ type: 'Used', data: {} }], { acknowledge: 'committed' });
    await waitForHeldSync();
    // The second commit lands while the first fsync is held: it needs the next fsync.
    await store.appendToStream('clientjti-e', [{ type: 'Used', data: {} }], { acknowledge: 'committed' });
    held.shift()!();
    while (held.length === 0) await turn();
    const read = readAllOf(store, 'clientjti-e');
    expect(await settledState(read)).toBe('pending');
    releaseSyncs();
    expect(await read).toHaveLength(2);
  });
});
