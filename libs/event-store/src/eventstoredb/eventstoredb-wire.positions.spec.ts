/**
 * What the shared contract cannot see: positions above 2^53 on the wire to EventStoreDB, kept exact by the
 * adapter. Runs through the real `@eventstore/db-client` against the in-process gRPC stand-in.
 */
import { collect, event, newCategory, take } from '../testing/esdb-rig.js';
import { useEsdbRig } from '../testing/esdb-wire-suite.js';

describe('EventStoreDB adapter: positions above 2^53', () => {
  const rig = useEsdbRig();

  it('keeps commit and prepare exact through appends, reads, subscriptions and checkpoints', async () => {
    const category = newCategory();
    const stream = `${category}-p`;
    const result = await rig.store.appendToStream(stream, [event('One'), event('Two'), event('Three')]);
    const stored = await collect(rig.backing.readStream(stream));
    const expected = stored.map((e) => rig.standIn.wirePosition(e.position));

    expect(result.position.commit > 2n ** 53n && result.position.prepare > 2n ** 53n).toBe(true);
    expect(BigInt(Number(result.position.commit))).not.toBe(result.position.commit); // a trip through `number` would show
    expect(result.position.commit).not.toBe(result.position.prepare);
    expect(result.position).toEqual(expected[2]);

    expect((await collect(rig.store.readStream(stream))).map((e) => e.position)).toEqual(expected);
    expect((await collect(rig.store.readAll({ filter: { streamCategories: [category] } }))).map((e) => e.position)).toEqual(expected);
    expect((await collect(rig.store.readAll({ after: expected[0], filter: { streamCategories: [category] } }))).map((e) => e.position)).toEqual(
      expected.slice(1),
    );
    expect(await rig.store.headPosition({ streamCategories: [category] })).toEqual(expected[2]);

    const subscription = rig.store.subscribeToAll({ after: expected[0], filter: { streamCategories: [category] } });
    expect((await take(subscription[Symbol.asyncIterator](), 2)).map((e) => e.position)).toEqual(expected.slice(1));
    await subscription.close();

    await rig.store.checkpoints.save(`c_${category}`, expected[1]!);
    expect(await rig.store.checkpoints.load(`c_${category}`)).toEqual(expected[1]);
    const [checkpoint] = await collect(rig.store.readStream(`checkpoint-c_${category}`));
    expect(checkpoint).toMatchObject({ type: 'CheckpointStored', data: { position: `${expected[1]!.commit}/${expected[1]!.prepare}` } });
  });
});
