import type { RecordedEvent } from '@mission/event-store';
import { ExpiredRecordSweeper, type ExpiringRecords } from './expired-record-sweeper.js';
import { tempStore } from './testing-store.spec-helper.js';

const RECORDS: ExpiringRecords = {
  name: 'test_replay',
  categories: ['used'],
  eventTypes: ['TokenUsed'],
  expiresAt: (event: RecordedEvent) => (typeof event.data['expires_at'] === 'string' ? new Date(event.data['expires_at']) : undefined),
};
const T0 = Date.parse('2026-11-26T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

describe('ExpiredRecordSweeper (ADR 0057)', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());

  const use = (id: string, expiresAt: string | undefined) =>
    env.store.appendToStream(`used-${id}`, [{ type: 'TokenUsed', data: expiresAt === undefined ? {} : { expires_at: expiresAt } }], { expectedRevision: 'no_stream' });
  const exists = async (id: string) => (await env.store.streamRevision(`used-${id}`)) !== 'no_stream';

  it('expires records oldest first once expires_at + grace has passed, stops at the first one still protecting, and leaves other streams', async () => {
    let now = T0;
    await use('a', at(60));
    await use('b', at(120));
    await use('c', at(90)); // expires before b but was written after it: waits for b
    await use('d', undefined); // says nothing about its expiry: kept
    await env.store.appendToStream('used-other', [{ type: 'SomethingElse', data: { expires_at: at(0) } }]);
    const sweeper = new ExpiredRecordSweeper(env.store, RECORDS, { clock: () => new Date(now), graceMs: 30_000, batchSize: 2 });

    now = T0 + 89_999;
    expect(await sweeper.sweep()).toBe(0);
    now = T0 + 90_000;
    expect(await sweeper.sweep()).toBe(1);
    expect([await exists('a'), await exists('b'), await exists('c')]).toEqual([false, true, true]);
    now = T0 + 150_000;
    expect(await sweeper.sweep()).toBe(2);
    expect([await exists('b'), await exists('c'), await exists('d'), (await env.store.streamRevision('used-other')) === 0n]).toEqual([false, false, true, true]);
    // The checkpoint keeps it from reading the same records again; nothing new to do.
    expect(await sweeper.sweep()).toBe(0);
  });

  it('resumes from its checkpoint after a restart', async () => {
    await use('a', at(0));
    await use('b', at(0));
    const now = () => new Date(T0 + 60_000);
    expect(await new ExpiredRecordSweeper(env.store, RECORDS, { clock: now, graceMs: 0 }).sweep()).toBe(2);
    const restarted = await env.restart();
    await restarted.appendToStream('used-c', [{ type: 'TokenUsed', data: { expires_at: at(0) } }]);
    expect(await new ExpiredRecordSweeper(restarted, RECORDS, { clock: now, graceMs: 0 }).sweep()).toBe(1);
  });
});
