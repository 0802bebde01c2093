import type { JsonObject, RecordedEvent } from '../port/event-store.js';

/** The `record` column: one JSON envelope per event (schema.ts). */
interface StoredRecord {
  id: string;
  type: string;
  created: number;
  metadata: JsonObject;
  data: JsonObject;
}

/** A RecordedEvent from a stored row; the caller owns the objects. */
export function decodeRecord(position: bigint, streamName: string, revision: bigint, text: string): RecordedEvent {
  const record = JSON.parse(text) as StoredRecord;
  return {
    streamName,
    revision,
    position: { commit: position, prepare: position },
    id: record.id,
    type: record.type,
    data: record.data,
    metadata: record.metadata,
    created: new Date(record.created),
  };
}

/** The same, deep-frozen, because subscribers may share it (recent-events.ts). */
export function decodeFrozen(position: bigint, streamName: string, revision: bigint, text: string): RecordedEvent {
  const event = decodeRecord(position, streamName, revision, text);
  deepFreeze(event.data);
  deepFreeze(event.metadata);
  Object.freeze(event.position);
  return Object.freeze(event);
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  for (const member of Object.values(value)) deepFreeze(member);
  Object.freeze(value);
}
