/**
 * What the shared contract cannot see: how the adapter maps EventStoreDB's errors and copes with an outage,
 * a bad connection string and its own close. Runs through the real `@eventstore/db-client` against the
 * in-process gRPC stand-in.
 */
import { EventStoreStartupError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../port/errors.js';
import { collect, event, newCategory } from '../testing/esdb-rig.js';
import { useEsdbRig } from '../testing/esdb-wire-suite.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

describe('EventStoreDB adapter: errors and reconnection', () => {
  const rig = useEsdbRig();

  it('maps wrong-expected-version trailers of a tombstone, including a missing stream', async () => {
    const stream = `${newCategory()}-x`;
    await expect(rig.store.tombstoneStream(stream, { expectedRevision: 0n })).rejects.toMatchObject({
      constructor: WrongExpectedRevisionError,
      streamName: stream,
      expected: 0n,
      actual: 'no_stream',
    });
    await rig.store.appendToStream(stream, [event('One'), event('Two')]);
    await expect(rig.store.tombstoneStream(stream, { expectedRevision: 'no_stream' })).rejects.toMatchObject({ expected: 'no_stream', actual: 1n });
  });

  it('reports an unreachable server as EventStoreUnavailableError and recovers by itself when it is back', async () => {
    const stream = `${newCategory()}-x`;
    await rig.store.appendToStream(stream, [event('Before')]);
    const port = rig.standIn.port;
    await rig.standIn.close();

    const failures = await Promise.all([
      rig.store.appendToStream(stream, [event('During')]).catch((e: unknown) => e),
      collect(rig.store.readStream(stream)).catch((e: unknown) => e),
      rig.store.streamRevision(stream).catch((e: unknown) => e),
      rig.store.headPosition().catch((e: unknown) => e),
      collect(rig.store.readAll({ maxCount: 1 })).catch((e: unknown) => e),
      rig.store.ping().catch((e: unknown) => e),
      rig.store.checkpoints.load('x').catch((e: unknown) => e),
    ]);
    for (const failure of failures) expect(failure).toBeInstanceOf(EventStoreUnavailableError);

    await rig.restartServer();
    expect(rig.standIn.port).toBe(port);
    await rig.store.ping();
    await rig.store.appendToStream(stream, [event('After')], { expectedRevision: 0n });
    expect((await collect(rig.store.readStream(stream))).map((e) => e.type)).toEqual(['Before', 'After']);
  });

  it('connects although the server is down, says so, and fails calls as unavailable', async () => {
    const port = rig.standIn.port;
    await rig.standIn.close();
    try {
      const lines = rig.logger.lines.length;
      const store = await EventStoreDbEventStore.connect({ connectionString: `esdb://127.0.0.1:${port}?tls=false`, logger: rig.logger });
      expect(rig.logger.lines.slice(lines)).toEqual([expect.objectContaining({ level: 'warn', message: expect.stringMatching(/not reachable/) })]);
      await expect(store.ping()).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await store.close();
    } finally {
      await rig.restartServer();
    }
  });

  it('refuses a malformed connection string at start-up without echoing credentials', async () => {
    const error = await EventStoreDbEventStore.connect({ connectionString: 'esdb://admin:s3cret@localhost:notaport' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreStartupError);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('refuses calls after close with EventStoreUnavailableError', async () => {
    const store = await rig.connect();
    await store.close();
    await expect(store.appendToStream(`${newCategory()}-x`, [event('Late')])).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(() => store.subscribeToAll()).toThrow(EventStoreUnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(EventStoreUnavailableError);
  });
});
