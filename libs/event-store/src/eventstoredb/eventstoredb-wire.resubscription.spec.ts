/**
 * What the shared contract cannot see: how the adapter's $all subscription survives dropped subscriptions,
 * outages and a server that re-sends the event at the resume position. Runs through the real
 * `@eventstore/db-client` against the in-process gRPC stand-in.
 */
import { formatPosition } from '../port/position.js';
import { collect, event, newCategory, take } from '../testing/esdb-rig.js';
import { useEsdbRig } from '../testing/esdb-wire-suite.js';

describe('EventStoreDB adapter: re-subscription', () => {
  const rig = useEsdbRig();

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
  const rig = useEsdbRig({ resendEventAtSubscriptionStart: true });

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
