/**
 * What the shared contract cannot see: the expected revision each append and tombstone puts on the wire to
 * EventStoreDB, and which append call it uses. Runs through the real `@eventstore/db-client` against the
 * in-process gRPC stand-in.
 */
import esdb from '@eventstore/db-client';
import { WrongExpectedRevisionError } from '../port/errors.js';
import { event, newCategory } from '../testing/esdb-rig.js';
import { useEsdbRig, writesTo } from '../testing/esdb-wire-suite.js';

describe.each([
  { mode: 'unary Append (no ServerFeatures service)', batchAppend: false, method: 'append' },
  { mode: 'BatchAppend (advertised by ServerFeatures)', batchAppend: true, method: 'batchAppend' },
])('EventStoreDB adapter on the wire: $mode', ({ batchAppend, method }) => {
  const rig = useEsdbRig({ batchAppend });

  it('puts every expected revision into the options message, and uses the append call the server offers', async () => {
    const stream = `${newCategory()}-x`;
    await rig.store.appendToStream(stream, [event('Opened')], { expectedRevision: 'no_stream' });
    await rig.store.appendToStream(stream, [event('Touched')], { expectedRevision: 'stream_exists' });
    await rig.store.appendToStream(stream, [event('Touched'), event('Touched')], { expectedRevision: 1n });
    await rig.store.appendToStream(stream, [event('Touched')], { expectedRevision: 'any' });
    await rig.store.appendToStream(stream, [event('Touched')]);
    await rig.store.tombstoneStream(stream, { expectedRevision: 5n });

    expect(writesTo(rig.standIn.requests, stream).map((r) => [r.method, r.expectedRevision, r.eventCount])).toEqual([
      [method, 'no_stream', 1],
      [method, 'stream_exists', 1],
      [method, 1n, 2],
      [method, 'any', 1],
      [method, 'any', 1],
      ['tombstone', 5n, 0],
    ]);
  });

  it('gets a conflicting append refused by the server, not by the adapter', async () => {
    const stream = `${newCategory()}-x`;
    await rig.store.appendToStream(stream, [event('Opened')]);
    const error = await rig.store.appendToStream(stream, [event('Touched')], { expectedRevision: 7n }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ streamName: stream, expected: 7n, actual: 0n });
    expect(writesTo(rig.standIn.requests, stream).at(-1)).toMatchObject({ method, expectedRevision: 7n });
  });

  it('shows why the option name matters: the client silently drops an option it does not know', async () => {
    const stream = `${newCategory()}-x`;
    const raw = esdb.EventStoreDBClient.connectionString(rig.standIn.connectionString);
    try {
      await raw.appendToStream(stream, esdb.jsonEvent({ type: 'Opened', data: {} }));
      // `streamState` is what @kurrent/kurrentdb-client calls it; this client ignores it and sends ANY.
      await raw.appendToStream(stream, esdb.jsonEvent({ type: 'Opened', data: {} }), { streamState: 'no_stream' } as never);
      expect(writesTo(rig.standIn.requests, stream).map((r) => r.expectedRevision)).toEqual(['any', 'any']);
    } finally {
      await raw.dispose();
    }
  });
});
