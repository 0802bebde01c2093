/**
 * What the shared contract cannot see: reads of EventStoreDB streams and $all that span many gRPC pages.
 * Runs through the real `@eventstore/db-client` against the in-process gRPC stand-in.
 */
import { collect, event, newCategory } from '../testing/esdb-rig.js';
import { useEsdbRig } from '../testing/esdb-wire-suite.js';

describe('EventStoreDB adapter: paging', () => {
  const rig = useEsdbRig();

  // Thousands of events through gRPC: about 1.5 s on an idle machine, 16 s on a loaded one; more on a slow CI machine.
  it('reads streams and $all across many pages, with system events between pages', async () => {
    const category = newCategory();
    const stream = `${category}-long`;
    for (let batch = 0; batch < 3; batch++) {
      await rig.store.appendToStream(stream, Array.from({ length: 400 }, (_, i) => event('Counted', { i: batch * 400 + i })));
      await rig.standIn.appendSystemEvent('$stats-127.0.0.1:2113', '$statsCollected');
      await rig.store.appendToStream(`other${category}-x`, [event('Foreign')]);
    }
    const numbers = (events: { data: Record<string, unknown> }[]) => events.map((e) => e.data['i']);
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

    expect(numbers(await collect(rig.store.readStream(stream)))).toEqual(range(0, 1200));
    expect(numbers(await collect(rig.store.readStream(stream, { direction: 'backwards' })))).toEqual(range(0, 1200).reverse());
    expect(numbers(await collect(rig.store.readStream(stream, { fromRevision: 550n, maxCount: 600 })))).toEqual(range(550, 1150));
    expect(numbers(await collect(rig.store.readStream(stream, { direction: 'backwards', fromRevision: 1000n, maxCount: 700 })))).toEqual(
      range(301, 1001).reverse(),
    );

    const all = await collect(rig.store.readAll({ filter: { streamCategories: [category] } }));
    expect(numbers(all)).toEqual(range(0, 1200));
    expect(numbers(await collect(rig.store.readAll({ filter: { streamCategories: [category] }, maxCount: 700 })))).toEqual(range(0, 700));
    expect(numbers(await collect(rig.store.readAll({ after: all[599]!.position, filter: { streamCategories: [category] } })))).toEqual(range(600, 1200));
    // Pages (mission-audit's full pass): the same events in the same order, never an empty page.
    const pages = await collect(rig.store.readAllPages({ filter: { streamCategories: [category] } }));
    expect(pages.every((page) => page.length > 0)).toBe(true);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat().map((e) => e.position)).toEqual(all.map((e) => e.position));
    expect(numbers((await collect(rig.store.readAllPages({ after: all[599]!.position, filter: { streamCategories: [category] } }))).flat())).toEqual(range(600, 1200));

    await rig.store.appendToStream(`later${category}-x`, Array.from({ length: 1100 }, () => event('Later')));
    expect(await rig.store.headPosition({ streamCategories: [category] })).toEqual(all[1199]!.position);
  }, 120_000);
});
