import { randomUUID } from 'node:crypto';
import { hashOfLastEvent, rememberAppendedHead } from './chain-head-cache.js';
import { eventHash, type ChainedEvent } from './hash-chain.js';

function chained(streamName: string, revision: bigint, data: Record<string, string> = { value: randomUUID() }): ChainedEvent {
  return { streamName, revision, type: 'Happened', data, metadata: { prev_hash: 'sha-256:x' } };
}

describe('chain-head cache (DESIGN 1 hash chain, ADR 0010)', () => {
  it('gives the hash of an appended head, computed lazily, equal to eventHash of the event', () => {
    const stream = `s-${randomUUID()}`;
    const id = randomUUID();
    const event = chained(stream, 3n);
    rememberAppendedHead(stream, id, event);
    expect(hashOfLastEvent({ ...event, id })).toBe(eventHash(event));
    expect(hashOfLastEvent({ ...event, id })).toBe(eventHash(event));
  });

  it('hashes a head at once with hashNow and still answers with the correct hash', () => {
    const stream = `s-${randomUUID()}`;
    const id = randomUUID();
    const event = chained(stream, 0n);
    rememberAppendedHead(stream, id, event, { hashNow: true });
    expect(hashOfLastEvent({ ...event, id })).toBe(eventHash(event));
  });

  it('never answers for another event: a different id or revision read as the head is hashed from what was read', () => {
    const stream = `s-${randomUUID()}`;
    const remembered = chained(stream, 1n);
    rememberAppendedHead(stream, randomUUID(), remembered, { hashNow: true });
    const written = chained(stream, 1n, { value: 'written by another replica' });
    expect(hashOfLastEvent({ ...written, id: randomUUID() })).toBe(eventHash(written));
    const later = chained(stream, 2n);
    expect(hashOfLastEvent({ ...later, id: randomUUID() })).toBe(eventHash(later));
  });

  it('hashes an event read without an id from its content', () => {
    const event = chained(`s-${randomUUID()}`, 0n);
    expect(hashOfLastEvent(event)).toBe(eventHash(event));
  });
});
