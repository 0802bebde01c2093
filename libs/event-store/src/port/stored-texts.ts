import type { RecordedEvent } from './event-store.js';

/**
 * The exact JSON texts an event's `data` and `metadata` were stored as, when an adapter has them at hand without
 * serializing again: the embedded store for the events it wrote itself, delivered to live subscribers from memory.
 * Both adapters store RFC 8785 text (validate-events.ts), so each is `canonicalJson` of the decoded value; a consumer
 * that hashes events (the seal writer) uses them instead of decoding and serializing every event again. A
 * symbol-keyed, non-enumerable member: no spread, `JSON.stringify` or comparison of events sees it, and a copy with
 * changed data (`{ ...event, data }`) does not carry texts of the old data.
 */
export const STORED_TEXTS: unique symbol = Symbol.for('@mission/event-store.stored-texts');

export interface StoredTexts {
  readonly data: string;
  readonly metadata: string;
}

export function storedTexts(event: object): StoredTexts | undefined {
  return (event as { [STORED_TEXTS]?: StoredTexts })[STORED_TEXTS];
}

/** A RecordedEvent that may carry its stored texts. */
export type RecordedEventWithTexts = RecordedEvent & { readonly [STORED_TEXTS]?: StoredTexts };
