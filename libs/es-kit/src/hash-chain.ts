import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { JsonObject } from '@mission/event-store';

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
  return digest({
    typ: 'stream-event',
    stream: event.streamName,
    revision: event.revision.toString(),
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  });
}

function digest(value: JsonObject): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return `sha-256:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
}
