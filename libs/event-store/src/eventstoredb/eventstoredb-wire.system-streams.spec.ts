/**
 * What the shared contract cannot see: how the adapter keeps EventStoreDB's own events and its checkpoint
 * streams out of $all, and which filters it sends. Runs through the real `@eventstore/db-client` against the
 * in-process gRPC stand-in.
 */
import esdb from '@eventstore/db-client';
import { EventStoreStartupError } from '../port/errors.js';
import { formatPosition } from '../port/position.js';
import { collect, event, newCategory, take } from '../testing/esdb-rig.js';
import { useEsdbRig, writesTo } from '../testing/esdb-wire-suite.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

describe("EventStoreDB adapter: the server's own events and checkpoint streams stay out of $all", () => {
  const rig = useEsdbRig();

  it('filters system streams and $-typed events on the server and again in the adapter', async () => {
    const category = newCategory();
    await rig.standIn.appendSystemEvent('$stats-127.0.0.1:2113', '$statsCollected', { cpu: 1 });
    const first = await rig.store.appendToStream(`${category}-a`, [event('One')]);
    await rig.standIn.appendSystemEvent('$projections-demo-result', 'Result', { count: 1 });
    const second = await rig.store.appendToStream(`${category}-a`, [event('Two')]);
    await rig.store.checkpoints.save('projection_status', second.position);
    await rig.standIn.appendSystemEvent('$stats-127.0.0.1:2113', '$statsCollected', { cpu: 2 });

    // The stand-in really serves them, interleaved: the raw client sees them in $all.
    const raw = esdb.EventStoreDBClient.connectionString(rig.standIn.connectionString);
    try {
      const rawStreams = (await collect(raw.readAll())).map((e) => e.event?.streamId);
      expect(rawStreams).toEqual(expect.arrayContaining(['$stats-127.0.0.1:2113', '$projections-demo-result', '$$checkpoint-projection_status']));
    } finally {
      await raw.dispose();
    }

    const all = await collect(rig.store.readAll());
    expect(all.map((e) => e.streamName)).toEqual([`${category}-a`, `${category}-a`]);
    expect(await rig.store.headPosition()).toEqual(second.position);

    const subscription = rig.store.subscribeToAll({ after: first.position });
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await take(iterator, 1))[0]!.type).toBe('Two');
    await rig.standIn.appendSystemEvent('$stats-127.0.0.1:2113', '$statsCollected', { cpu: 3 });
    await rig.store.checkpoints.save('projection_status', second.position);
    await rig.store.appendToStream(`${category}-b`, [event('Three')]);
    expect((await take(iterator, 1))[0]!.type).toBe('Three');
    await subscription.close();

    const subscriptionRequests = rig.standIn.requests.filter((r) => r.method === 'read' && r.target === 'all' && r.subscription);
    expect(subscriptionRequests.at(-1)).toMatchObject({ filter: { on: 'stream', regex: '^(?!\\$|checkpoint(?:-|$))' } });
  });

  it('asks the server for the categories by prefix and keeps only exact categories', async () => {
    const category = newCategory();
    await rig.store.appendToStream(`${category}x-a`, [event('Lookalike')]);
    await rig.store.appendToStream(`${category}-a`, [event('Mine')]);
    await rig.store.appendToStream(category, [event('DashLess')]);
    const subscription = rig.store.subscribeToAll({ filter: { streamCategories: [category] } });
    expect((await take(subscription[Symbol.asyncIterator](), 2)).map((e) => e.type)).toEqual(['Mine', 'DashLess']);
    await subscription.close();
    expect(rig.standIn.requests.at(-1)).toMatchObject({ method: 'read', subscription: true, filter: { on: 'stream', prefixes: [category] } });
    expect((await collect(rig.store.readAll({ filter: { streamCategories: [category] } }))).map((e) => e.type)).toEqual(['Mine', 'DashLess']);
  });

  it('caps checkpoint streams with $maxCount once, not on every save', async () => {
    const consumer = `c_${newCategory()}`;
    const stream = `checkpoint-${consumer}`;
    const head = (await rig.store.headPosition())!;
    await rig.store.checkpoints.save(consumer, head);
    await rig.store.checkpoints.save(consumer, head);
    const restarted = await rig.connect();
    await restarted.checkpoints.save(consumer, head);

    const raw = esdb.EventStoreDBClient.connectionString(rig.standIn.connectionString);
    try {
      expect((await raw.getStreamMetadata(stream)).metadata).toMatchObject({ maxCount: 10 });
    } finally {
      await raw.dispose();
    }
    expect(writesTo(rig.standIn.requests, `$$${stream}`)).toHaveLength(1);
    expect(writesTo(rig.standIn.requests, stream)).toHaveLength(3);
    expect(await restarted.checkpoints.load(consumer)).toEqual(head);
  });

  it('takes the checkpoint category from the options', async () => {
    const store = await rig.connect({ checkpointStreamPrefix: 'cp' });
    const head = (await store.headPosition())!;
    await store.checkpoints.save('projector', head);
    expect((await collect(store.readStream('cp-projector'))).map((e) => e.data)).toEqual([{ position: formatPosition(head) }]);
    expect((await collect(store.readAll())).some((e) => e.streamName.startsWith('cp-'))).toBe(false);
    await expect(EventStoreDbEventStore.connect({ connectionString: rig.standIn.connectionString, checkpointStreamPrefix: 'check-point' })).rejects.toBeInstanceOf(
      EventStoreStartupError,
    );
  });
});
