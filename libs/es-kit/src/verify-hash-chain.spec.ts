import type { EventData, JsonObject } from '@mission/event-store';
import { eventHash, genesisHash } from './hash-chain.js';
import { verifyHashChain } from './verify-hash-chain.js';
import { tempStore } from './testing-store.spec-helper.js';

/** Builds a correctly chained history for `stream`, then lets a test tamper with it before storing. */
function chained(stream: string, datas: JsonObject[]): EventData[] {
  let prev = genesisHash(stream);
  return datas.map((data, index) => {
    const metadata = { occurred_at: '2026-11-22T10:00:00Z', prev_hash: prev };
    prev = eventHash({ streamName: stream, revision: BigInt(index), type: 'Changed', data, metadata });
    return { type: 'Changed', data, metadata };
  });
}

describe('hash-chain verifier (DESIGN 1: audit replay detects edited, dropped or reordered events)', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());
  const history = [{ state: 'active' }, { state: 'suspended' }, { state: 'active' }, { state: 'revoked' }];

  it('accepts an intact chain and reports its head hash', async () => {
    await env.store.appendToStream('mission-ok', chained('mission-ok', history));
    const result = await verifyHashChain(env.store, 'mission-ok');
    expect(result).toMatchObject({ ok: true, events: 4 });
  });

  it('reports an edited event at the event after it', async () => {
    const events = chained('mission-edit', history);
    events[1] = { ...events[1]!, data: { state: 'active' } };
    await env.store.appendToStream('mission-edit', events);
    expect(await verifyHashChain(env.store, 'mission-edit')).toMatchObject({ ok: false, brokenAt: 2n });
  });

  it('reports a dropped event', async () => {
    const events = chained('mission-drop', history);
    events.splice(1, 1);
    await env.store.appendToStream('mission-drop', events);
    expect(await verifyHashChain(env.store, 'mission-drop')).toMatchObject({ ok: false, brokenAt: 1n });
  });

  it('reports reordered events', async () => {
    const events = chained('mission-swap', history);
    [events[1], events[2]] = [events[2]!, events[1]!];
    await env.store.appendToStream('mission-swap', events);
    expect(await verifyHashChain(env.store, 'mission-swap')).toMatchObject({ ok: false, brokenAt: 1n });
  });

  it('reports an event copied in from another stream', async () => {
    await env.store.appendToStream('mission-moved', chained('mission-other', history));
    expect(await verifyHashChain(env.store, 'mission-moved')).toMatchObject({ ok: false, brokenAt: 0n });
  });

  it('reports an event without prev_hash', async () => {
    await env.store.appendToStream('mission-bare', [{ type: 'Changed', data: {} }]);
    expect(await verifyHashChain(env.store, 'mission-bare')).toMatchObject({ ok: false, brokenAt: 0n, reason: 'event has no prev_hash' });
  });
});
