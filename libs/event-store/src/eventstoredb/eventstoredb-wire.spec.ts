/**
 * What the shared contract cannot see: what actually crosses the wire to EventStoreDB, and how the
 * adapter copes with the server's own events, huge positions, outages and dropped subscriptions.
 * Everything runs through the real `@eventstore/db-client` against the in-process gRPC stand-in.
 */
import esdb from '@eventstore/db-client';
import { EventStoreStartupError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../port/errors.js';
import { formatPosition } from '../port/position.js';
import { collect, event, newCategory, openEsdbRig, take, type EsdbRig } from '../testing/esdb-rig.js';
import type { StandInRequest } from '../testing/esdb-grpc-stand-in.js';
import type { WriteRequestRecord } from '../testing/esdb-stand-in-write.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

const writesTo = (requests: readonly StandInRequest[], streamName: string): WriteRequestRecord[] =>
  requests.filter((r): r is WriteRequestRecord => r.method !== 'read' && r.streamName === streamName);

describe.each([
  { mode: 'unary Append (no ServerFeatures service)', batchAppend: false, method: 'append' },
  { mode: 'BatchAppend (advertised by ServerFeatures)', batchAppend: true, method: 'batchAppend' },
])('EventStoreDB adapter on the wire: $mode', ({ batchAppend, method }) => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig({ batchAppend });
  });
  afterAll(() => rig.dispose());

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

describe('EventStoreDB adapter: positions above 2^53', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig();
  });
  afterAll(() => rig.dispose());

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

describe("EventStoreDB adapter: the server's own events and checkpoint streams stay out of $all", () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig();
  });
  afterAll(() => rig.dispose());

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

describe('EventStoreDB adapter: paging', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig();
  });
  afterAll(() => rig.dispose());

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

describe('EventStoreDB adapter: errors and reconnection', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig();
  });
  afterAll(() => rig.dispose());

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

describe('EventStoreDB adapter: re-subscription', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig();
  });
  afterAll(() => rig.dispose());

  it('re-subscribes from the last delivered position after a drop, logging it, without gaps or repeats', async () => {
    const category = newCategory();
    const stream = `${category}-s`;
    await rig.store.appendToStream(stream, Array.from({ length: 3 }, (_, i) => event('Counted', { i })));
    const subscription = rig.store.subscribeToAll({ filter: { streamCategories: [category] } });
    const iterator = subscription[Symbol.asyncIterator]();
    const before = await take(iterator, 3);
    const lines = rig.logger.lines.length;

    rig.standIn.dropSubscriptions();
    await rig.store.appendToStream(stream, Array.from({ length: 2 }, (_, i) => event('Counted', { i: 3 + i })));
    const after = await take(iterator, 2);
    expect([...before, ...after].map((e) => e.data['i'])).toEqual([0, 1, 2, 3, 4]);

    const logged = rig.logger.lines.slice(lines);
    expect(logged.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/re-subscribing from the last delivered position/),
        fields: expect.objectContaining({ resume_after: formatPosition(before[2]!.position), attempt: 1 }),
      }),
    ]);
    expect(logged).toContainEqual(expect.objectContaining({ level: 'info', message: 're-subscribed to $all' }));
    const resumed = rig.standIn.requests.filter((r) => r.method === 'read' && r.target === 'all' && r.subscription).at(-1);
    expect(resumed).toMatchObject({ from: before[2]!.position });
    await subscription.close();
  });

  it('delivers every event exactly once in order while subscriptions keep being dropped under load', async () => {
    const category = newCategory();
    const total = 300;
    const subscription = rig.store.subscribeToAll({ after: await rig.store.headPosition(), filter: { streamCategories: [category] } });
    const delivered: number[] = [];
    const consuming = (async () => {
      for await (const recorded of subscription) {
        delivered.push(Number(recorded.data['i']));
        if (delivered.length === total) return;
      }
    })();
    const resubscriptions = () => rig.logger.lines.filter((l) => /re-subscribing/.test(l.message)).length;
    const before = resubscriptions();
    // Every 30th append (from the 15th) is followed at once by a drop, while its event may be in flight. Drops wait for the
    // subscription to be live again (it delivered everything before), so each one is counted whatever
    // this machine's speed (a timer-based drop could land while the client was reconnecting).
    const drops = Math.floor(total / 30);
    try {
      for (let i = 0; i < total; i++) {
        const dropNow = i % 30 === 14;
        if (dropNow) await until(() => delivered.length >= i, 10_000);
        await rig.store.appendToStream(`${category}-${i % 7}`, [event('Counted', { i })]);
        if (dropNow) rig.standIn.dropSubscriptions();
      }
      await Promise.race([consuming, until(() => false, 60_000)]);
      expect(delivered).toEqual(Array.from({ length: total }, (_, i) => i));
      expect(resubscriptions() - before).toBe(drops);
    } finally {
      await subscription.close();
    }
  });

  it('rides out a server outage with back-off and picks up what was written meanwhile', async () => {
    const category = newCategory();
    const subscription = rig.store.subscribeToAll({ after: await rig.store.headPosition(), filter: { streamCategories: [category] } });
    const iterator = subscription[Symbol.asyncIterator]();
    await rig.store.appendToStream(`${category}-a`, [event('Before')]);
    expect((await take(iterator, 1))[0]!.type).toBe('Before');

    const restarted = rig.restartServer({ downForMs: 700 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await rig.backing.appendToStream(`${category}-a`, [event('WhileDown')]); // written by someone else meanwhile
    await restarted;
    await rig.store.appendToStream(`${category}-a`, [event('AfterRestart')]);
    expect((await take(iterator, 2, 20_000)).map((e) => e.type)).toEqual(['WhileDown', 'AfterRestart']);
    expect(rig.logger.lines.filter((l) => /re-subscribing/.test(l.message)).length).toBeGreaterThanOrEqual(2);
    await subscription.close();
  });

  it('ends promptly when closed while waiting to re-subscribe', async () => {
    const port = rig.standIn.port;
    const subscription = rig.store.subscribeToAll({ filter: { streamCategories: [newCategory()] } });
    const iterator = subscription[Symbol.asyncIterator]();
    const pending = iterator.next();
    await rig.standIn.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await subscription.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await rig.restartServer();
    expect(rig.standIn.port).toBe(port);
  });
});

describe('EventStoreDB adapter: a server that re-sends the event at the resume position', () => {
  let rig: EsdbRig;
  beforeAll(async () => {
    rig = await openEsdbRig({ resendEventAtSubscriptionStart: true });
  });
  afterAll(() => rig.dispose());

  it('still delivers strictly after the checkpoint and never repeats an event on re-subscription', async () => {
    const category = newCategory();
    const appended = await rig.store.appendToStream(`${category}-a`, [event('Counted', { i: 0 }), event('Counted', { i: 1 })]);
    const [first] = await collect(rig.store.readAll({ filter: { streamCategories: [category] }, maxCount: 1 }));
    const subscription = rig.store.subscribeToAll({ after: first!.position, filter: { streamCategories: [category] } });
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await take(iterator, 1))[0]!.position).toEqual(appended.position);
    rig.standIn.dropSubscriptions();
    await rig.store.appendToStream(`${category}-a`, [event('Counted', { i: 2 })]);
    expect((await take(iterator, 1))[0]!.data).toEqual({ i: 2 });
    await subscription.close();
  });
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
