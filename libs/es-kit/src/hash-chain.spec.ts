import canonicalize from 'canonicalize';
import { randomBytes } from 'node:crypto';
import type { JsonObject } from '@mission/event-store';
import { aggregateStream, handleCommand } from './handle-command.js';
import { canonicalJson } from './hash-chain.js';
import { verifyHashChain } from './verify-hash-chain.js';
import { tempStore } from './testing-store.spec-helper.js';

const KEYS = ['b', 'a', 'é', 'A', 'aa', '😀', '1', '10', '2', '_', '\u2028'];
const LEAVES: unknown[] = [1e21, -0, 1e-7, 123, 5e-324, 1e300, 0.1, 'a"\\\n😀é\u2028', '', null, true, false];

function randomJson(depth: number, next: () => number): unknown {
  const r = next();
  if (depth > 4 || r < 0.3) return LEAVES[Math.floor(next() * LEAVES.length)];
  if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomJson(depth + 1, next));
  const object: Record<string, unknown> = {};
  for (let i = 0; i < Math.floor(next() * 5); i++) object[KEYS[Math.floor(next() * KEYS.length)]!] = randomJson(depth + 1, next);
  return object;
}

describe('canonicalJson (RFC 8785, ADR 0005/0010)', () => {
  it('produces exactly what the canonicalize package produces for JSON values', () => {
    let seed = 42;
    const next = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 3_000; i++) {
      const value = JSON.parse(JSON.stringify({ x: randomJson(0, next), y: randomJson(0, next) })) as JsonObject;
      expect(canonicalJson(value)).toBe(canonicalize(value));
    }
  });

  it('gives the same text for values already in canonical member order, the stored form of events (integer-like keys included)', () => {
    let seed = 7;
    const next = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 3_000; i++) {
      const sorted = JSON.parse(canonicalize({ x: randomJson(0, next), y: randomJson(0, next) })!) as JsonObject;
      expect(canonicalJson(sorted)).toBe(canonicalize(sorted));
    }
    expect(canonicalJson({ a: { '10': 1, '9': 2, b: 'é' }, z: [{ y: 1, x: 2 }] })).toBe('{"a":{"10":1,"9":2,"b":"é"},"z":[{"x":2,"y":1}]}');
  });

  it('falls back to canonicalize for what JSON.parse never returns, and refuses lone surrogates as it does', () => {
    const withToJson = { at: new Date('2026-01-01T00:00:00Z'), list: [undefined, 1], skipped: undefined };
    expect(canonicalJson(withToJson)).toBe(canonicalize(withToJson));
    expect(() => canonicalJson({ a: '\ud800' })).toThrow('Lone surrogate');
    expect(() => canonicalJson({ ['\udc00']: 1 })).toThrow('Lone surrogate');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow();
  });
});

describe('chain-head cache (ADR 0010)', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());

  const counter = {
    initialState: 0,
    decide: (command: { n: number }, state: number) => Array.from({ length: command.n }, (_, i) => ({ type: 'Counted', data: { value: state + i + 1 } })),
    evolve: (_state: number, event: { type: string; data: { value: number } }) => event.data.value,
  };
  const context = { correlationId: 'c', causationId: 'k', actor: { id: 'a', role: 'system' }, now: new Date('2026-11-22T10:00:00Z') };

  it('keeps the chain valid across appends that hit the cache, miss it (another writer), and multi-event appends', async () => {
    const stream = `counter-${randomBytes(4).toString('hex')}`;
    await handleCommand(env.store, stream, counter as never, { n: 1 }, context, { hashChain: true });
    await handleCommand(env.store, stream, counter as never, { n: 3 }, context, { hashChain: true });
    await handleCommand(env.store, stream, counter as never, { n: 1 }, context, { hashChain: true });
    expect((await verifyHashChain(env.store, stream)).ok).toBe(true);
    // The same stream name in another store: the cached head belongs to another event id, so it must not be used.
    const other = await tempStore();
    try {
      await handleCommand(other.store, stream, counter as never, { n: 2 }, { ...context, causationId: 'other' }, { hashChain: true });
      await handleCommand(other.store, stream, counter as never, { n: 1 }, context, { hashChain: true });
      expect((await verifyHashChain(other.store, stream)).ok).toBe(true);
    } finally {
      await other.dispose();
    }
    await handleCommand(env.store, stream, counter as never, { n: 2 }, context, { hashChain: true });
    expect((await verifyHashChain(env.store, stream)).ok).toBe(true);
    expect((await aggregateStream(env.store, stream, counter as never)).revision).toBe(6n);
  });
});
