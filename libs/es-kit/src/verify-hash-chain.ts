import type { EventStore } from '@mission/event-store';
import { eventHash, genesisHash, PREV_HASH } from './hash-chain.js';

export type ChainVerification =
  | { readonly ok: true; readonly streamName: string; readonly events: number; readonly headHash: string }
  | { readonly ok: false; readonly streamName: string; readonly brokenAt: bigint; readonly reason: string };

/** Walks a stream forwards and reports the first event whose `prev_hash` does not match its predecessor. */
export async function verifyHashChain(store: EventStore, streamName: string): Promise<ChainVerification> {
  let expectedPrev = genesisHash(streamName);
  let expectedRevision = 0n;
  let count = 0;
  for await (const event of store.readStream(streamName)) {
    if (event.revision !== expectedRevision) {
      return { ok: false, streamName, brokenAt: event.revision, reason: `revision ${event.revision} follows ${expectedRevision - 1n}` };
    }
    const prev = event.metadata[PREV_HASH];
    if (typeof prev !== 'string') return { ok: false, streamName, brokenAt: event.revision, reason: 'event has no prev_hash' };
    if (prev !== expectedPrev) {
      return { ok: false, streamName, brokenAt: event.revision, reason: `prev_hash ${prev} does not match the previous event (${expectedPrev})` };
    }
    expectedPrev = eventHash(event);
    expectedRevision += 1n;
    count += 1;
  }
  return { ok: true, streamName, events: count, headHash: expectedPrev };
}
