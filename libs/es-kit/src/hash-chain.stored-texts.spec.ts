import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalJson, EmbeddedEventStore, storedTexts, type JsonObject, type RecordedEvent } from '@mission/event-store';
import { eventHash } from './hash-chain.js';

/**
 * Live subscribers of the embedded store get the events this process wrote with their stored texts and parsed only on
 * first use (recent-events.ts); the seal writer hashes the texts. Both must be invisible: the same hash and the same
 * event as one read back from SQLite.
 */
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((value) => JSON.parse(JSON.stringify(value)) as JsonObject);

describe('events delivered with their stored texts (STORED_TEXTS)', () => {
  let dir: string;
  let store: EmbeddedEventStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stored-texts-'));
    store = await EmbeddedEventStore.open({ dataDir: dir, subscriptionPollMs: 50 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function liveAndStored(streamName: string, data: JsonObject, metadata: JsonObject): Promise<[RecordedEvent, RecordedEvent]> {
    const head = await store.headPosition();
    const subscription = store.subscribeToAll({ ...(head ? { after: head } : {}), filter: { streamCategories: ['texts'] } });
    const next = subscription[Symbol.asyncIterator]().next();
    await store.appendToStream(streamName, [{ type: 'Happened', data, metadata }]);
    const live = (await next).value as RecordedEvent;
    await subscription.close();
    const stored: RecordedEvent[] = [];
    for await (const event of store.readStream(streamName)) stored.push(event);
    return [live, stored[0]!];
  }

  it('hash the same as the event read back and decoded (fast-check over data and metadata)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(jsonObject, jsonObject, async (data, metadata) => {
        const [live, stored] = await liveAndStored(`texts-${n++}`, data, metadata);
        // Exactly the texts stored (cut out of the stored record, event-writes.ts), character for character.
        expect(storedTexts(live)).toEqual({ data: canonicalJson(stored.data), metadata: canonicalJson(stored.metadata) });
        expect(storedTexts(stored)).toBeUndefined();
        expect(eventHash(live)).toBe(eventHash(stored));
        expect(eventHash(live)).toBe(eventHash({ ...stored, data: stored.data, metadata: stored.metadata }));
      }),
      { numRuns: 60 },
    );
  });

  it('look like a decoded event to every reader: members, spread, frozen', async () => {
    const [live, stored] = await liveAndStored('texts-a', { b: [1, { c: 'x' }], a: 'é' }, { actor: { id: 'u' } });
    expect(live).toEqual(stored);
    expect({ ...live }).toEqual({ ...stored });
    expect(Object.keys(live)).toEqual(Object.keys(stored));
    expect(JSON.stringify(live.data)).toBe(JSON.stringify(stored.data));
    expect(Object.isFrozen(live)).toBe(true);
    expect(Object.isFrozen(live.data)).toBe(true);
    expect(Object.isFrozen((live.data as { b: unknown[] }).b)).toBe(true);
    expect(live.created).toBe(live.created);
    // Two events of the tail do not share their members: each accessor reaches its own row.
    const [other] = await liveAndStored('texts-b', { z: 2 }, { actor: { id: 'v' } });
    expect([other.streamName, other.type, other.data, other.metadata]).toEqual(['texts-b', 'Happened', { z: 2 }, { actor: { id: 'v' } }]);
    expect([live.streamName, live.data, live.metadata]).toEqual(['texts-a', stored.data, stored.metadata]);
    expect(other.id).not.toBe(live.id);
    expect(storedTexts(other)).toEqual({ data: '{"z":2}', metadata: canonicalJson(other.metadata) });
    // A copy with other data is hashed from that data, not from the texts of the original.
    const changed = { ...live, data: { other: true } };
    expect(storedTexts(changed)).toBeUndefined();
    expect(eventHash(changed)).toBe(eventHash({ ...stored, data: { other: true } }));
    expect(() => ((live as { type: string }).type = 'Other')).toThrow(TypeError);
  });
});
