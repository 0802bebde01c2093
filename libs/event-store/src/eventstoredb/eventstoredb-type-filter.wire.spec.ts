import { collect, event, newCategory, openEsdbRig, take, type EsdbRig } from '../testing/esdb-rig.js';

describe('EventStoreDB adapter: event-type filters run on the server (ADR 0055)', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig({ batchAppend: true });
  });
  afterAll(() => rig.dispose());

  it('subscribes with an anchored server-side type filter and applies the categories itself', async () => {
    const category = newCategory();
    const wanted = `Wanted${category}`;
    await rig.store.appendToStream(`${category}-a`, [event(`${wanted}Longer`), event('Logged'), event(wanted, { n: 1 })]);
    await rig.store.appendToStream(`o${category}-a`, [event(wanted, { n: 2 })]);
    await rig.store.appendToStream(`${category}-b`, [event(wanted, { n: 3 })]);

    const subscription = rig.store.subscribeToAll({ filter: { streamCategories: [category], eventTypes: [wanted] } });
    expect((await take(subscription[Symbol.asyncIterator](), 2)).map((e) => e.data['n'])).toEqual([1, 3]);
    await subscription.close();
    // The server ships only the exact type: neither `Logged` nor the longer type with the same prefix.
    expect(rig.standIn.requests.at(-1)).toMatchObject({ method: 'read', subscription: true, filter: { on: 'type', regex: `^(?:${wanted})$` } });
    expect((await collect(rig.store.readAll({ filter: { streamCategories: [category], eventTypes: [wanted] } }))).map((e) => e.data['n'])).toEqual([1, 3]);
  });
});
