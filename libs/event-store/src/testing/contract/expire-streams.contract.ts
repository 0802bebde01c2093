/**
 * `expireStreams` (ADR 0057), for every adapter: expired streams read as absent everywhere, their names may be
 * written again, tombstones stay tombstones, and nothing else is touched.
 */
import { randomBytes } from 'node:crypto';
import type { EventData, EventStore } from '../../port/event-store.js';
import { InvalidStreamNameError, StreamDeletedError } from '../../port/errors.js';
import { collect, take } from '../async-iteration.js';
import type { EventStoreHarness } from './event-store.contract.js';

const event = (type: string, data: Record<string, unknown> = {}): EventData => ({ type, data }) as EventData;

export function describeExpireStreamsContract(adapterName: string, makeHarness: () => EventStoreHarness): void {
  describe(`EventStore contract, expireStreams: ${adapterName}`, () => {
    let harness: EventStoreHarness;
    let store: EventStore;
    let category: string;
    const stream = (id: string) => `${category}-${id}`;

    beforeAll(async () => {
      harness = makeHarness();
      store = await harness.openFresh();
    });
    afterAll(async () => {
      await store.close();
      await harness.dispose();
    });
    beforeEach(() => {
      category = `t${randomBytes(6).toString('hex')}`;
    });

    it('removes the streams from every read, leaves the others, and frees the names', async () => {
      const start = await store.headPosition();
      const subscription = store.subscribeToAll({ ...(start ? { after: start } : {}), filter: { streamCategories: [category] } });
      await store.appendToStream(stream('a'), [event('Used'), event('Used')]);
      await store.appendToStream(stream('b'), [event('Used')]);
      await store.appendToStream(stream('keep'), [event('Kept')]);
      expect((await take(subscription, 4)).map((e) => e.streamName)).toEqual([stream('a'), stream('a'), stream('b'), stream('keep')]);
      await subscription.close();

      await store.expireStreams([stream('a'), stream('b'), stream('absent')]);
      expect(await collect(store.readStream(stream('a')))).toEqual([]);
      expect(await store.streamRevision(stream('b'))).toBe('no_stream');
      expect((await collect(store.readAll({ filter: { streamCategories: [category] } }))).map((e) => e.streamName)).toEqual([stream('keep')]);
      const replayed = store.subscribeToAll({ ...(start ? { after: start } : {}), filter: { streamCategories: [category] } });
      expect((await take(replayed, 1)).map((e) => e.streamName)).toEqual([stream('keep')]);
      await replayed.close();
      expect(await store.streamRevision(stream('keep'))).toBe(0n);
      // The name is free again: a record of the same name can be created.
      await expect(store.appendToStream(stream('a'), [event('UsedAgain')], { expectedRevision: 'no_stream' })).resolves.toBeDefined();
    });

    it('never turns a tombstone into a free name', async () => {
      await store.appendToStream(stream('t'), [event('Used')]);
      await store.tombstoneStream(stream('t'));
      await store.expireStreams([stream('t')]);
      await expect(store.appendToStream(stream('t'), [event('Used')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(StreamDeletedError);
    });

    it('refuses an invalid name before removing anything', async () => {
      await store.appendToStream(stream('v'), [event('Used')]);
      await expect(store.expireStreams([stream('v'), '$system'])).rejects.toBeInstanceOf(InvalidStreamNameError);
      expect(await store.streamRevision(stream('v'))).toBe(0n);
    });
  });
}
