import { eventHash, type ChainedEvent } from './hash-chain.js';

/** An event this process appended to a hash-chained stream; its hash is computed when first needed. */
interface Head {
  readonly id: string;
  readonly revision: bigint;
  readonly event: ChainedEvent;
  hash?: string;
}

const CAPACITY = 16_384;

/**
 * The newest event this process appended to each hash-chained stream (the most recent CAPACITY
 * streams), so that the next append to the stream links to it without re-canonicalizing and
 * re-hashing the event it just read (ADR 0005, 0010).
 *
 * Sound without any invalidation: an entry is used only for exactly the event it was made from — same
 * stream, same revision AND the same event id (a UUID generated here before the append) — and a stored
 * event never changes. So another replica's append, a restart, or a second store with the same stream
 * names can only cause a miss, never a wrong `prev_hash`. The hash of an appended event is computed
 * lazily: a terminal event (e.g. MissionCascaded) that nothing is ever chained to is never hashed.
 */
const heads = new Map<string, Head>();

/** `prev_hash` for an append after `last` (the event read as the stream's newest). */
export function hashOfLastEvent(last: ChainedEvent & { readonly id?: string }): string {
  const head = last.id === undefined ? undefined : heads.get(last.streamName);
  if (head !== undefined && head.id === last.id && head.revision === last.revision) {
    head.hash ??= eventHash(head.event);
    return head.hash;
  }
  return eventHash(last);
}

/** Records the newest event of a committed append (its id was chosen by the caller). */
export function rememberAppendedHead(streamName: string, id: string, event: ChainedEvent, hash?: string): void {
  heads.delete(streamName);
  heads.set(streamName, { id, revision: event.revision, event, ...(hash !== undefined ? { hash } : {}) });
  if (heads.size > CAPACITY) heads.delete(heads.keys().next().value!);
}
