import type { Decider, DomainEvent } from '@mission/decider';
import type { EventStore, ReadStreamOptions } from '@mission/event-store';
import { AggregateCache } from './aggregate-cache.js';
import { aggregateStream, handleCommand } from './handle-command.js';
import { context, tempStore } from './testing-store.spec-helper.js';

type CounterEvent = DomainEvent<'Incremented', { by: number }>;
type CounterCommand = { type: 'increment'; by: number; limit: number };
class LimitReached extends Error {}
const counter: Decider<CounterCommand, CounterEvent, number> = {
  initialState: 0,
  decide: (command, total) => {
    if (total + command.by > command.limit) throw new LimitReached(`limit ${command.limit}`);
    return [{ type: 'Incremented', data: { by: command.by } }];
  },
  evolve: (total, event) => total + event.data.by,
};

/** The store, counting the events every read delivers. */
function counting(store: EventStore): { store: EventStore; delivered: () => number } {
  let delivered = 0;
  const wrapped = Object.create(store, {
    readStream: {
      value: async function* (name: string, options?: ReadStreamOptions) {
        for await (const event of store.readStream(name, options)) {
          delivered += 1;
          yield event;
        }
      },
    },
  }) as EventStore;
  return { store: wrapped, delivered: () => delivered };
}

describe('AggregateCache', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());

  it('reads only the events after the cached revision, and is as fresh as a full read', async () => {
    for (let i = 0; i < 50; i++) await handleCommand(env.store, 'counter-a', counter, { type: 'increment', by: 1, limit: 1_000 }, context());
    const { store, delivered } = counting(env.store);
    const cache = new AggregateCache(store, counter);
    expect((await cache.load('counter-a')).state).toBe(50);
    expect(delivered()).toBe(50);
    // Another writer (another replica) appends behind the cache's back: the next load sees it, reading 2 events.
    await handleCommand(env.store, 'counter-a', counter, { type: 'increment', by: 1, limit: 1_000 }, context());
    await handleCommand(env.store, 'counter-a', counter, { type: 'increment', by: 1, limit: 1_000 }, context());
    expect(await cache.load('counter-a')).toMatchObject({ state: 52, revision: 51n });
    expect(delivered()).toBe(52);
    expect((await aggregateStream(env.store, 'counter-a', counter)).state).toBe(52);
  });

  it('handle decides over the cached state; a stale cache costs a retry, never a wrong commit', async () => {
    const cache = new AggregateCache(env.store, counter);
    await cache.handle('counter-b', { type: 'increment', by: 2, limit: 3 }, context());
    // Another writer takes the last unit; the cache does not know yet.
    await handleCommand(env.store, 'counter-b', counter, { type: 'increment', by: 1, limit: 3 }, context());
    await expect(cache.handle('counter-b', { type: 'increment', by: 1, limit: 3 }, context())).rejects.toBeInstanceOf(LimitReached);
    expect((await aggregateStream(env.store, 'counter-b', counter)).state).toBe(3);
  });

  it('a limit holds under concurrency through one cache', async () => {
    const cache = new AggregateCache(env.store, counter);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => cache.handle('counter-c', { type: 'increment', by: 1, limit: 3 }, context(), { maxAttempts: 50 })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect((await aggregateStream(env.store, 'counter-c', counter)).state).toBe(3);
  });

  it('handle keeps the state it appended (write-through): the next load reads nothing back, and is still fresh', async () => {
    const { store, delivered } = counting(env.store);
    const cache = new AggregateCache(store, counter);
    for (let i = 0; i < 5; i++) await cache.handle('counter-w', { type: 'increment', by: 1, limit: 1_000 }, context());
    expect(await cache.load('counter-w')).toMatchObject({ state: 5, revision: 4n });
    expect(delivered()).toBe(0);
    // What it holds is what a full read of the store gives, and another writer's append is still seen.
    expect((await aggregateStream(env.store, 'counter-w', counter)).state).toBe(5);
    await handleCommand(env.store, 'counter-w', counter, { type: 'increment', by: 10, limit: 1_000 }, context());
    expect(await cache.load('counter-w')).toMatchObject({ state: 15, revision: 5n });
    expect(delivered()).toBe(1);
  });

  it('forgets the least recently used stream beyond its bound', async () => {
    const cache = new AggregateCache(env.store, counter, 2);
    for (const name of ['s-1', 's-2', 's-3']) await cache.handle(name, { type: 'increment', by: 1, limit: 9 }, context());
    for (const name of ['s-1', 's-2', 's-3']) await cache.load(name);
    expect(cache.size).toBe(2);
  });
});
