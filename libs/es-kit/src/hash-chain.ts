import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { canonicalJson, storedTexts, type JsonObject } from '@mission/event-store';

export { canonicalJson };

/**
 * Hash chain of a lifecycle stream (DESIGN 1). Each event's `metadata.prev_hash` is the hash of the
 * event before it in the same stream; the first event links to a genesis hash bound to the stream name,
 * so an event cannot be moved to another stream. Hashes cover the stream name, revision, type, data and
 * the full metadata (including its own `prev_hash`) in RFC 8785 canonical form, so editing, dropping,
 * reordering or moving any event breaks the link of the event after it. Truncating the newest events
 * is not detectable from the stream alone: compare the head hash with an external record for that.
 */
export const PREV_HASH = 'prev_hash';

export interface ChainedEvent {
  readonly streamName: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
}

export function genesisHash(streamName: string): string {
  return digest({ typ: 'stream-genesis', stream: streamName });
}

export function eventHash(event: ChainedEvent): string {
  // An event delivered with the texts it was stored as (canonical JSON, STORED_TEXTS) is hashed without decoding it.
  const texts = storedTexts(event);
  return eventHashOfCanonicalTexts({
    streamName: event.streamName, revision: event.revision, type: event.type,
    dataText: texts?.data ?? canonicalJson(event.data), metadataText: texts?.metadata ?? canonicalJson(event.metadata),
  });
}

/** An event whose `data` and `metadata` are given as JSON text. */
export interface ChainedEventTexts {
  readonly streamName: string;
  readonly revision: bigint;
  readonly type: string;
  readonly dataText: string;
  readonly metadataText: string;
}

/**
 * The hash of `eventHash` from `data` and `metadata` already in canonical form: the same hash whenever the two
 * texts are `canonicalJson` of the values, built without parsing or serialising them again. Given other text (not
 * canonical), the hash covers that text exactly as given — which is how the audit holds a stored record to the
 * bytes the service wrote (ADR 0037). Canonical JSON of the whole hashed object is this concatenation: its members
 * sort as data < metadata < revision < stream < typ < type.
 */
export function eventHashOfCanonicalTexts(event: ChainedEventTexts): string {
  return sha256Digest(
    `${EVENT_HASH_DATA_OPEN}${event.dataText}${EVENT_HASH_METADATA_MEMBER}${event.metadataText}`
    + eventHashInputTail(event.revision, canonicalJson(event.streamName), canonicalJson(event.type)),
  );
}

/** `eventHash`'s input is `{"data":` <data> `,"metadata":` <metadata> and this tail. */
export const EVENT_HASH_DATA_OPEN = '{"data":';
export const EVENT_HASH_METADATA_MEMBER = ',"metadata":';

/** The rest of `eventHash`'s input, given the canonical JSON of the stream name and of the event type. */
export function eventHashInputTail(revision: bigint, streamJcs: string, typeJcs: string): string {
  return `,"revision":"${revision.toString()}","stream":${streamJcs},"typ":"stream-event","type":${typeJcs}}`;
}

/** Node ≥ 20.12's one-shot `crypto.hash` (no Hash object per event); not yet in this @types/node. */
const oneShotHash = (crypto as unknown as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'base64url') => string }).hash;

function digest(value: JsonObject): string {
  return sha256Digest(canonicalJson(value));
}

/** `sha-256:` and the base64url SHA-256 of the text (as UTF-8) or bytes: the form of every chain hash. */
export function sha256Digest(input: string | Uint8Array): string {
  return `sha-256:${oneShotHash ? oneShotHash('sha256', input, 'base64url') : createHash('sha256').update(input).digest('base64url')}`;
}
