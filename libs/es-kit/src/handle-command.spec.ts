import type { Decider, DomainEvent } from '@mission/decider';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import { handleCommand, aggregateStream } from './handle-command.js';
import { verifyHashChain } from './verify-hash-chain.js';
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

describe('handleCommand', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());

  it('folds, decides and appends with metadata from the command context', async () => {
    const result = await handleCommand(env.store, 'counter-a', counter, { type: 'increment', by: 2, limit: 10 }, context());
    expect(result.state).toBe(2);
    expect(result.revision).toBe(0n);
    const [event] = await toArray(env.store.readStream('counter-a'));
    expect(event!.metadata).toEqual({ correlation_id: 'corr-1', causation_id: 'req-1', actor: { id: 'alice', role: 'person' }, occurred_at: '2026-11-22T10:00:00.000Z' });
  });

  it('re-decides on fresh state when a concurrent writer wins, so a limit holds under concurrency', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => handleCommand(env.store, 'counter-b', counter, { type: 'increment', by: 1, limit: 3 }, context(), { maxAttempts: 50 })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const failure of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) expect(failure.reason).toBeInstanceOf(LimitReached);
    expect((await aggregateStream(env.store, 'counter-b', counter)).state).toBe(3);
  });

  it('gives up with WrongExpectedRevision after the bounded number of attempts', async () => {
    const racing: EventStore = Object.create(env.store, {
      appendToStream: { value: async () => { throw new WrongExpectedRevisionError('counter-c', 0n, 1n); } },
    });
    await expect(handleCommand(racing, 'counter-c', counter, { type: 'increment', by: 1, limit: 3 }, context(), { maxAttempts: 3 }))
      .rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it('chains prev_hash across appends on lifecycle streams, verifiable by walking the stream', async () => {
    for (let i = 0; i < 4; i++) await handleCommand(env.store, 'counter-d', counter, { type: 'increment', by: 1, limit: 10 }, context(), { hashChain: true });
    const verification = await verifyHashChain(env.store, 'counter-d');
    expect(verification).toMatchObject({ ok: true, events: 4 });
  });
});

async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
