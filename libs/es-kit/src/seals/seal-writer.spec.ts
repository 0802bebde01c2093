import { generateKeyPair } from 'jose';
import { collect } from '@mission/event-store/testing';
import { eventually, tempStore } from '../testing-store.spec-helper.js';
import { eventHash } from '../hash-chain.js';
import { es256SealSigner, verifySealJws } from './seal-jws.js';
import { entriesDigest, SealSegment, sealStreamName, type SealEntry, type SealPayload } from './seal-segment.js';
import { SealWriter } from './seal-writer.js';
import type { EventStore } from '@mission/event-store';

async function keys() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const { exportJWK } = await import('jose');
  return { signer: es256SealSigner(privateKey, 'k1'), jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] } };
}

async function seals(store: EventStore): Promise<{ payload: SealPayload; entries: SealEntry[] }[]> {
  return (await collect(store.readStream(sealStreamName('svc')))).map((event) => ({
    payload: JSON.parse(Buffer.from(String(event.data['jws']).split('.')[1]!, 'base64url').toString('utf8')) as SealPayload,
    entries: event.data['entries'] as SealEntry[],
  }));
}

const append = (store: EventStore, count: number) =>
  Promise.all(Array.from({ length: count }, (_, i) => store.appendToStream(`thing-${i % 3}`, [{ type: 'Happened', data: { i } }])));

describe('SealWriter (ADR 0028)', () => {
  it('seals every N events with a JWS the public key verifies, over exactly the events of its range', async () => {
    const temp = await tempStore();
    const { signer, jwks } = await keys();
    const writer = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 4, everyMs: 60_000 });
    await writer.start();
    await append(temp.store, 8);
    await eventually(async () => (await seals(temp.store)).length === 2);
    await writer.stop();
    const written = await seals(temp.store);
    const events = (await collect(temp.store.readAll())).filter((event) => event.streamName.startsWith('thing-'));
    const segment = new SealSegment();
    for (const event of events.slice(0, 4)) segment.add(event.streamName, event.revision, eventHash(event));
    expect(written[0]!.entries).toEqual(segment.entries());
    expect(written[0]!.payload).toMatchObject({ seq: 0, after: null, events: 4, entries_digest: entriesDigest(segment.entries()) });
    expect(written[1]!.payload).toMatchObject({ seq: 1, after: written[0]!.payload.through, events: 4 });
    const [jws] = (await collect(temp.store.readStream(sealStreamName('svc')))).map((event) => String(event.data['jws']));
    expect(await verifySealJws(jws!, jwks)).toMatchObject({ ok: true, kid: 'k1' });
    expect(await verifySealJws(jws!, { keys: [{ ...jwks.keys[0]!, x: (await keys()).jwks.keys[0]!.x }] })).toMatchObject({ ok: false });
    await temp.dispose();
  });

  it('resumes after its last seal on restart and seals the rest on stop: every event in exactly one seal', async () => {
    const temp = await tempStore();
    const { signer } = await keys();
    const first = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000 });
    await first.start();
    await append(temp.store, 5);
    await eventually(async () => (await collect(temp.store.readAll())).length === 5);
    await first.flush();
    await first.stop();
    await append(temp.store, 3);
    const second = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000 });
    await second.start();
    await eventually(async () => {
      await second.flush();
      return (await seals(temp.store)).reduce((sum, seal) => sum + seal.payload.events, 0) === 8;
    });
    await second.stop();
    const written = await seals(temp.store);
    expect(written.map((seal) => seal.payload.seq)).toEqual(written.map((_, index) => index));
    for (let i = 1; i < written.length; i++) expect(written[i]!.payload.after).toBe(written[i - 1]!.payload.through);
    await temp.dispose();
  });

  it('issue 15 item 6: a stop far behind seals at most maxEventsAtStop more events; the next start seals the rest, every event in exactly one seal', async () => {
    const temp = await tempStore();
    const { signer } = await keys();
    await append(temp.store, 10);
    // Its subscription delivers nothing (a writer that has not caught up): everything is left to the stop.
    const behind: EventStore = Object.assign(Object.create(temp.store) as EventStore, {
      subscribeToAll: () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true as const, value: undefined }) }), close: async () => undefined }),
    });
    const first = new SealWriter({ store: behind, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000, maxEventsAtStop: 4 });
    await first.start();
    await first.stop();
    expect((await seals(temp.store)).map((seal) => seal.payload.events)).toEqual([4]);
    const second = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000 });
    await second.start();
    await second.stop();
    const written = await seals(temp.store);
    expect(written.reduce((sum, seal) => sum + seal.payload.events, 0)).toBe(10);
    for (let i = 1; i < written.length; i++) expect(written[i]!.payload.after).toBe(written[i - 1]!.payload.through);
    await temp.dispose();
  });

  it('two writers on one store (two replicas) never seal one range twice: the loser resumes after the winner', async () => {
    const temp = await tempStore();
    const { signer } = await keys();
    const a = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000 });
    const b = new SealWriter({ store: temp.store, service: 'svc', signer, everyEvents: 1000, everyMs: 60_000 });
    await a.start();
    await b.start();
    await append(temp.store, 6);
    await eventually(async () => (await collect(temp.store.readAll())).length === 6);
    // Deterministic interleaving: both have seen the same six events; A seals first, then B tries the same range.
    await eventually(async () => {
      await a.flush();
      return (await seals(temp.store)).length === 1;
    });
    await b.flush();
    await append(temp.store, 2);
    await eventually(async () => {
      await b.flush();
      return (await seals(temp.store)).reduce((sum, seal) => sum + seal.payload.events, 0) === 8;
    });
    await a.stop();
    await b.stop();
    const written = await seals(temp.store);
    expect(written.reduce((sum, seal) => sum + seal.payload.events, 0)).toBe(8);
    for (let i = 1; i < written.length; i++) expect(written[i]!.payload.after).toBe(written[i - 1]!.payload.through);
    await temp.dispose();
  });
});
