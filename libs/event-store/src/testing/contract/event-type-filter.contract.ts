/**
 * The event-type filter of the store port (ADR 0055), for every adapter: a consumer that names the types it
 * handles is never handed the others, in `readAll`, `headPosition` and catch-up subscriptions, alone or
 * combined with categories. Every test uses its own random category and type names, so the suite also runs
 * against a long-lived shared server.
 */
import { randomBytes } from 'node:crypto';
import type { EventData, EventStore } from '../../port/event-store.js';
import { InvalidEventError } from '../../port/errors.js';
import { comparePositions } from '../../port/position.js';
import { collect, take } from '../async-iteration.js';
import type { EventStoreHarness } from './event-store.contract.js';

const event = (type: string, data: Record<string, unknown> = {}): EventData => ({ type, data }) as EventData;

export function describeEventTypeFilterContract(adapterName: string, makeHarness: () => EventStoreHarness): void {
  describe(`EventStore contract, event-type filter: ${adapterName}`, () => {
    let harness: EventStoreHarness;
    let store: EventStore;
    let category: string;
    let other: string;
    /** Unique per test: `Wanted`, `Logged`, ... become e.g. `Wanted3fa9c1d2e4b5`. */
    let type: (name: string) => string;
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
      const suffix = randomBytes(6).toString('hex');
      category = `t${suffix}`;
      other = `o${suffix}`;
      type = (name) => `${name}${suffix}`;
    });

    it('reads only the named types, in global order, across categories, and AND-ed with a category filter', async () => {
      await store.appendToStream(stream('a'), [event(type('Wanted'), { n: 1 }), event(type('Logged'))]);
      await store.appendToStream(`${other}-a`, [event(type('Wanted'), { n: 2 })]);
      await store.appendToStream(stream('b'), [event(type('Logged')), event(type('Also'), { n: 3 }), event(type('Wanted'), { n: 4 })]);

      const wanted = await collect(store.readAll({ filter: { eventTypes: [type('Wanted'), type('Also')] } }));
      expect(wanted.map((e) => e.data['n'])).toEqual([1, 2, 3, 4]);
      const positions = wanted.map((e) => e.position);
      expect(positions.every((position, i) => i === 0 || comparePositions(positions[i - 1]!, position) < 0)).toBe(true);

      const inCategory = await collect(store.readAll({ filter: { streamCategories: [category], eventTypes: [type('Wanted')] } }));
      expect(inCategory.map((e) => e.data['n'])).toEqual([1, 4]);
      const after = await collect(store.readAll({ after: wanted[0]!.position, maxCount: 2, filter: { eventTypes: [type('Wanted'), type('Also')] } }));
      expect(after.map((e) => e.data['n'])).toEqual([2, 3]);
    });

    it('reports the head position of the named types only', async () => {
      expect(await store.headPosition({ eventTypes: [type('Wanted')] })).toBeUndefined();
      const wanted = await store.appendToStream(stream('h'), [event(type('Wanted'))]);
      await store.appendToStream(stream('h'), [event(type('Logged')), event(type('Logged'))]);
      expect(comparePositions((await store.headPosition({ eventTypes: [type('Wanted')] }))!, wanted.position)).toBe(0);
      expect(comparePositions((await store.headPosition({ streamCategories: [category], eventTypes: [type('Wanted')] }))!, wanted.position)).toBe(0);
      expect(await store.headPosition({ streamCategories: [other], eventTypes: [type('Wanted')] })).toBeUndefined();
    });

    it('subscribes to history, then live events, of the named types only, past thousands of other events', async () => {
      const start = await store.headPosition();
      await store.appendToStream(stream('s'), [event(type('Wanted'), { n: 1 }), event(type('Logged'))]);
      const subscription = store.subscribeToAll({ ...(start ? { after: start } : {}), filter: { streamCategories: [category], eventTypes: [type('Wanted')] } });
      const received = take(subscription, 3, 20_000);
      // More than a page of other types between the wanted ones, in the category the consumer follows.
      for (let i = 0; i < 5; i++) await store.appendToStream(stream('s'), Array.from({ length: 1000 }, () => event(type('Logged'))));
      await store.appendToStream(stream('s'), [event(type('Wanted'), { n: 2 })]);
      await store.appendToStream(`${other}-s`, [event(type('Wanted'), { n: 99 })]);
      await store.appendToStream(stream('t'), [event(type('Logged')), event(type('Wanted'), { n: 3 })]);
      const events = await received;
      expect(events.map((e) => [e.type, e.data['n']])).toEqual([[type('Wanted'), 1], [type('Wanted'), 2], [type('Wanted'), 3]]);
      await subscription.close();
    }, 30_000);

    it('resumes a type-filtered subscription after a checkpoint without repeats', async () => {
      const first = await store.appendToStream(stream('r'), [event(type('Wanted'), { n: 1 })]);
      await store.appendToStream(stream('r'), [event(type('Logged')), event(type('Wanted'), { n: 2 })]);
      const resumed = store.subscribeToAll({ after: first.position, filter: { eventTypes: [type('Wanted')] } });
      const [next] = await take(resumed, 1);
      expect(next!.data['n']).toBe(2);
      await resumed.close();
    });

    it('matches nothing for an empty type list and refuses an invalid type', async () => {
      await store.appendToStream(stream('e'), [event(type('Wanted'))]);
      expect(await collect(store.readAll({ filter: { streamCategories: [category], eventTypes: [] } }))).toEqual([]);
      expect(await store.headPosition({ eventTypes: [] })).toBeUndefined();
      await expect(collect(store.readAll({ filter: { eventTypes: ['not a type'] } }))).rejects.toBeInstanceOf(InvalidEventError);
      await expect(store.headPosition({ eventTypes: ["Wanted' OR 1=1"] })).rejects.toBeInstanceOf(InvalidEventError);
    });
  });
}
