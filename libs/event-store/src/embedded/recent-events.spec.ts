import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../port/event-store.js';
import { WrongExpectedRevisionError } from '../port/errors.js';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { RecentEvents, sharedRecordedEvent, type RecentRow } from './recent-events.js';

function row(position: number, streamName = `cat-${position % 3}`): RecentRow {
  const category = streamName.split('-')[0]!;
  return { position: BigInt(position), streamName, category, type: 'Happened', revision: 0n, record: JSON.stringify({ id: `id-${position}`, type: 'Happened', created: 0, metadata: {}, data: { n: position, nested: { list: [1] } } }) };
}

describe('RecentEvents (the in-memory tail for live subscriptions)', () => {
  it('answers only for positions it covers: everything after the head at open, nothing older', () => {
    const recent = new RecentEvents(10n, 100);
    expect(recent.page(5n, {}, 10)).toBeUndefined();
    expect(recent.page(10n, {}, 10)).toEqual({ rows: [], scannedTo: 10n });
    recent.addCommitted([row(11), row(12)]);
    expect(recent.page(10n, {}, 10)?.rows.map((r) => r.position)).toEqual([11n, 12n]);
    expect(recent.page(11n, {}, 10)?.rows.map((r) => r.position)).toEqual([12n]);
    expect(recent.page(9n, {}, 10)).toBeUndefined();
  });

  it('filters by category and honours the page limit', () => {
    const recent = new RecentEvents(0n, 100);
    recent.addCommitted([1, 2, 3, 4, 5, 6].map((n) => row(n)));
    expect(recent.page(0n, { categories: new Set(['cat']) }, 10)?.rows.length).toBe(6);
    expect(recent.page(0n, { categories: new Set(['other']) }, 10)).toEqual({ rows: [], scannedTo: 6n });
    expect(recent.page(0n, {}, 4)?.rows.map((r) => r.position)).toEqual([1n, 2n, 3n, 4n]);
  });

  it('says how far a filtered page looked, so a subscriber of a quiet category does not rescan the same rows', () => {
    const recent = new RecentEvents(0n, 100);
    recent.addCommitted([row(1, 'par-1'), row(2, 'mission-1'), row(3, 'par-2'), row(4, 'par-3')]);
    const first = recent.page(0n, { categories: new Set(['mission']) }, 10);
    expect(first?.rows.map((r) => r.position)).toEqual([2n]);
    expect(first?.scannedTo).toBe(4n);
    // Limited: the scan stops at the last row it returned.
    expect(recent.page(0n, { categories: new Set(['par']) }, 1)).toEqual({ rows: [row(1, 'par-1')], scannedTo: 1n });
  });

  it('evicts from the front and then no longer answers for the evicted positions', () => {
    const recent = new RecentEvents(0n, 3);
    recent.addCommitted([1, 2, 3, 4, 5].map((n) => row(n)));
    expect(recent.page(0n, {}, 10)).toBeUndefined();
    expect(recent.page(1n, {}, 10)).toBeUndefined();
    expect(recent.page(2n, {}, 10)?.rows.map((r) => r.position)).toEqual([3n, 4n, 5n]);
    recent.addCommitted([6, 7, 8, 9].map((n) => row(n)));
    expect(recent.page(5n, {}, 10)).toBeUndefined();
    expect(recent.page(6n, {}, 10)?.rows.map((r) => r.position)).toEqual([7n, 8n, 9n]);
  });

  it('drops a tombstoned stream’s rows', () => {
    const recent = new RecentEvents(0n, 10);
    recent.addCommitted([row(1, 'a-1'), row(2, 'a-2'), row(3, 'a-1')]);
    recent.removeStreams(new Set(['a-1']));
    expect(recent.page(0n, {}, 10)?.rows.map((r) => r.streamName)).toEqual(['a-2']);
  });

  it('decodes a row once and shares it deep-frozen', () => {
    const shared = row(1);
    const first = sharedRecordedEvent(shared);
    expect(sharedRecordedEvent(shared)).toBe(first);
    expect(first.data).toEqual({ n: 1, nested: { list: [1] } });
    expect(Object.isFrozen(first) && Object.isFrozen(first.data) && Object.isFrozen((first.data['nested'] as { list: number[] }).list)).toBe(true);
    expect(() => ((first.data as Record<string, unknown>)['n'] = 2)).toThrow(TypeError);
  });
});

describe('embedded store: live subscriptions served from the recent events', () => {
  let dataDir: string;
  let store: EmbeddedEventStore;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-recent-'));
    store = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 5_000, recentEventsCapacity: 4 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function take(count: number, after?: RecordedEvent['position']): Promise<RecordedEvent[]> {
    const subscription = store.subscribeToAll({ ...(after ? { after } : {}), filter: { streamCategories: ['order'] } });
    const seen: RecordedEvent[] = [];
    for await (const event of subscription) {
      seen.push(event);
      if (seen.length === count) break;
    }
    await subscription.close();
    return seen;
  }

  it('gives live subscribers the same frozen events, and a subscriber behind the tail reads them from SQLite', async () => {
    const live = Promise.all([take(10), take(10)]);
    await new Promise((resolve) => setTimeout(resolve, 20)); // both are waiting at the head
    for (let i = 0; i < 10; i++) await store.appendToStream(`order-${i % 2}`, [{ type: 'Placed', data: { i } }]);
    const [one, two] = await live;
    expect(one.map((e) => e.data['i'])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(one.every((event, index) => event === two[index])).toBe(true);
    expect(one.every((e) => Object.isFrozen(e.data))).toBe(true);
    // Capacity 4: a subscriber from the start is behind the tail and reads SQLite pages — same sequence, also frozen.
    const late = await take(10);
    expect(late.map((e) => [e.id, e.position.commit, e.data['i']])).toEqual(one.map((e) => [e.id, e.position.commit, e.data['i']]));
    expect(late[0]).not.toBe(one[0]);
    expect(late.every((e) => Object.isFrozen(e.data))).toBe(true);
  });

  it('a filtered live subscriber skips other categories once and still sees every event of its own', async () => {
    const live = take(3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 3; i++) {
      await store.appendToStream(`noise-${i}`, [{ type: 'Other', data: { i } }]);
      await store.appendToStream(`order-${i}`, [{ type: 'Placed', data: { i } }]);
      await store.appendToStream(`noise-${i}`, [{ type: 'Other', data: { i } }]);
    }
    expect((await live).map((e) => [e.streamName, e.data['i']])).toEqual([['order-0', 0], ['order-1', 1], ['order-2', 2]]);
  });

  it('never serves rows of a refused append, nor rows of a tombstoned stream', async () => {
    const refused = store.appendToStream('order-x', [{ type: 'Placed', data: { i: 'refused' } }], { expectedRevision: 5n });
    const accepted = store.appendToStreams([
      { streamName: 'order-y', events: [{ type: 'Placed', data: { i: 'y' } }] },
      { streamName: 'order-z', events: [{ type: 'Placed', data: { i: 'z' } }], expectedRevision: 3n },
    ]);
    await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await accepted).map((outcome) => outcome.ok)).toEqual([true, false]);
    await store.appendToStream('order-gone', [{ type: 'Placed', data: { i: 'gone' } }]);
    await store.tombstoneStream('order-gone');
    await store.appendToStream('order-w', [{ type: 'Placed', data: { i: 'w' } }]);
    expect((await take(2)).map((e) => e.data['i'])).toEqual(['y', 'w']);
  });
});
