import { eventHash, type ChainedEvent } from './hash-chain.js';

/** The newest event of a hash-chained stream as this process last saw it. */
interface Head {
  readonly id: string;
  readonly revision: bigint;
}

/** Appended, not hashed yet: holds the event so its hash can be computed when first needed. */
interface UnhashedHead extends Head {
  readonly event: ChainedEvent;
}

interface HashedHead extends Head {
  readonly hash: string;
}

/** Heads holding their whole event (a few KiB each). */
const UNHASHED_CAPACITY = 16_384;
/** Heads holding only id, revision and hash (a few hundred bytes each). */
const HASHED_CAPACITY = 65_536;

/**
 * The newest event of each recently written hash-chained stream, so that the next append to the
 * stream links to it without re-canonicalizing and re-hashing the event it just read (ADR 0005, 0010).
 *
 * Sound without any invalidation: an entry is used only for exactly the event it was made from — same
 * stream, same revision AND the same event id (a UUID generated here before the append) — and a stored
 * event never changes. So another replica's append, a restart, or a second store with the same stream
 * names can only cause a miss, never a wrong `prev_hash`.
 *
 * Two tiers: an appended event's hash is computed lazily (a terminal event such as MissionCascaded,
 * which nothing is ever chained to, is never hashed), so the first tier keeps the event itself; once a
 * hash is known it moves to the compact second tier, which holds four times as many streams. A
 * stream's first event is hashed at once (`hashNow`): it is nearly always followed by more events, often
 * long after the first tier has moved on — e.g. a Child Mission's creation and its cascade (ADR 0010).
 */
const unhashed = new Map<string, UnhashedHead>();
const hashed = new Map<string, HashedHead>();

/** `prev_hash` for an append after `last` (the event read as the stream's newest). */
export function hashOfLastEvent(last: ChainedEvent & { readonly id?: string }): string {
  if (last.id === undefined) return eventHash(last);
  const known = hashed.get(last.streamName);
  if (known !== undefined && known.id === last.id && known.revision === last.revision) return known.hash;
  const pending = unhashed.get(last.streamName);
  const hash = eventHash(pending !== undefined && pending.id === last.id && pending.revision === last.revision ? pending.event : last);
  remember(last.streamName, { id: last.id, revision: last.revision, hash });
  return hash;
}

/** Records the newest event of a committed append (its id was chosen by the caller). */
export function rememberAppendedHead(streamName: string, id: string, event: ChainedEvent, options: { hashNow?: boolean } = {}): void {
  if (options.hashNow === true) {
    remember(streamName, { id, revision: event.revision, hash: eventHash(event) });
    return;
  }
  hashed.delete(streamName);
  unhashed.delete(streamName);
  unhashed.set(streamName, { id, revision: event.revision, event });
  if (unhashed.size > UNHASHED_CAPACITY) unhashed.delete(unhashed.keys().next().value!);
}

function remember(streamName: string, head: HashedHead): void {
  unhashed.delete(streamName);
  hashed.delete(streamName);
  hashed.set(streamName, head);
  if (hashed.size > HASHED_CAPACITY) hashed.delete(hashed.keys().next().value!);
}
