import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppendSignal } from './append-signal.js';
import { EmbeddedEventStore } from './embedded-event-store.js';

interface Row { readonly category: string }
const woken = (promise: Promise<void>): Promise<boolean> => Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);

describe('AppendSignal wakes a filtered subscription only for rows it wants', () => {
  const never = new AbortController().signal;

  it('a commit of other rows leaves it asleep; a commit with one wanted row wakes it', async () => {
    const signal = new AppendSignal<Row>();
    const waiting = signal.next(60_000, never, (row) => row.category === 'mission');
    signal.notify([{ category: 'clientjti' }, { category: 'dpopjti' }]);
    expect(await woken(waiting)).toBe(false);
    signal.notify([{ category: 'clientjti' }, { category: 'mission' }]);
    expect(await woken(waiting)).toBe(true);
  });

  it('an unfiltered waiter is woken by every commit; every waiter by a notify without rows (close)', async () => {
    const signal = new AppendSignal<Row>();
    const all = signal.next(60_000, never);
    const filtered = signal.next(60_000, never, () => false);
    signal.notify([{ category: 'clientjti' }]);
    expect(await woken(all)).toBe(true);
    expect(await woken(filtered)).toBe(false);
    signal.notify();
    expect(await woken(filtered)).toBe(true);
  });

  it('abort and the backstop timer still wake it', async () => {
    const signal = new AppendSignal<Row>();
    const abort = new AbortController();
    const aborted = signal.next(60_000, abort.signal, () => false);
    abort.abort();
    expect(await woken(aborted)).toBe(true);
    await signal.next(5, never, () => false); // resolves by its timer
  });
});

describe('a filtered live subscription after many commits it does not want', () => {
  it('gets the wanted event at once, not at the poll backstop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'append-signal-'));
    // A poll of a minute: only the signal can deliver within the test's time.
    const store = await EmbeddedEventStore.open({ dataDir: dir, subscriptionPollMs: 60_000, recentEventsCapacity: 64 });
    const subscription = store.subscribeToAll({ filter: { streamCategories: ['mission'] } });
    const iterator = subscription[Symbol.asyncIterator]();
    try {
      const first = iterator.next();
      // More unwanted commits than the recent tier holds, so the wanted one is read past a rolled-over buffer.
      for (let i = 0; i < 200; i++) await store.appendToStream(`clientjti-${i}`, [{ type: 'ClientAssertionUsed', data: {} }]);
      await store.appendToStream('mission-a', [{ type: 'MissionCreated', data: {} }]);
      const event = await first;
      expect(event.value?.streamName).toBe('mission-a');
    } finally {
      await subscription.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
