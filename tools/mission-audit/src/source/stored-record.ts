import type { JsonObject, Position, RecordedEvent } from '@mission/event-store';
import type { EventPage } from './audit-source.js';
import {
  HASH_WIDTH, LAYOUT_DATA_START, LAYOUT_HEAD_END, LAYOUT_METADATA_END, LAYOUT_METADATA_START, LAYOUT_RECORD_END,
  LAYOUT_RECORD_START, LAYOUT_STREAM_END, LAYOUT_WIDTH, type ReadPage,
} from './reader-thread-protocol.js';

/** Where a stored record sits in the store. */
export interface StoredRow {
  readonly streamName: string;
  readonly revision: bigint;
  readonly position: Position;
}

/** A stored record cannot be parsed: the store was written by something other than the service. */
export class UnreadableRecordError extends Error {}

interface Head {
  readonly id: string;
  readonly type: string;
  readonly created: number;
}

/**
 * A `RecordedEvent` of a stored record that stored-page.ts cut and hashed: its members are decoded and parsed on
 * first access, since most events are only hashed and linked (ADR 0037): the chain check reads `metadata`
 * (its `prev_hash`) of every event, the service checks `type` and `data` of the events they follow.
 */
export class StoredRecordEvent implements RecordedEvent {
  readonly position: Position;
  private parsedHead: Head | undefined;
  private parsedMetadata: JsonObject | undefined;
  private parsedData: JsonObject | undefined;

  constructor(
    readonly streamName: string,
    readonly revision: bigint,
    position: bigint,
    private readonly records: Buffer,
    private readonly layout: Int32Array,
    private readonly at: number,
  ) {
    this.position = { commit: position, prepare: position };
  }

  get id(): string {
    return this.head.id;
  }

  get type(): string {
    return this.head.type;
  }

  get created(): Date {
    return new Date(this.head.created);
  }

  get metadata(): JsonObject {
    this.parsedMetadata ??= parseMember(this, 'metadata', this.records.toString('utf8', this.layout[this.at + LAYOUT_METADATA_START], this.layout[this.at + LAYOUT_METADATA_END]));
    return this.parsedMetadata;
  }

  get data(): JsonObject {
    this.parsedData ??= parseMember(this, 'data', this.records.toString('utf8', this.layout[this.at + LAYOUT_DATA_START], this.layout[this.at + LAYOUT_RECORD_END]! - 1));
    return this.parsedData;
  }

  private get head(): Head {
    this.parsedHead ??= parseMember(this, 'head', `${this.records.toString('utf8', this.layout[this.at + LAYOUT_RECORD_START], this.layout[this.at + LAYOUT_HEAD_END])}}`) as unknown as Head;
    return this.parsedHead;
  }
}

/** The events of a page cut by stored-page.ts, with their hashes. */
export function eventPageOf(page: ReadPage): EventPage {
  const records = Buffer.from(page.records);
  const { layout } = page;
  const count = page.positions.length;
  const events = new Array<RecordedEvent>(count);
  const hashes = new Array<string | undefined>(count);
  for (let index = 0; index < count; index++) {
    const at = index * LAYOUT_WIDTH;
    const streamName = page.streams.slice(index === 0 ? 0 : layout[at - LAYOUT_WIDTH + LAYOUT_STREAM_END], layout[at + LAYOUT_STREAM_END]);
    const revision = page.revisions[index]!;
    const position = page.positions[index]!;
    if (layout[at + LAYOUT_METADATA_START]! < 0) {
      const text = records.toString('utf8', layout[at + LAYOUT_RECORD_START], layout[at + LAYOUT_RECORD_END]);
      events[index] = decodeWholeRecord({ streamName, revision, position: { commit: position, prepare: position } }, text);
      continue;
    }
    events[index] = new StoredRecordEvent(streamName, revision, position, records, layout, at);
    hashes[index] = page.hashes.slice(index * HASH_WIDTH, (index + 1) * HASH_WIDTH);
  }
  return { events, hashes };
}

function parseMember(row: { streamName: string; revision: bigint }, member: string, text: string): JsonObject {
  try {
    return JSON.parse(text) as JsonObject;
  } catch (error) {
    throw new UnreadableRecordError(`${row.streamName} revision ${row.revision}: the stored ${member} is not JSON (${(error as Error).message})`);
  }
}

/** The record parsed whole, as the store's own reader does. */
export function decodeWholeRecord(row: StoredRow, text: string): RecordedEvent {
  let record: { id: string; type: string; created: number; metadata: JsonObject; data: JsonObject };
  try {
    record = JSON.parse(text) as typeof record;
  } catch (error) {
    throw new UnreadableRecordError(`${row.streamName} revision ${row.revision}: the stored record is not JSON (${(error as Error).message})`);
  }
  return { ...row, id: record.id, type: record.type, data: record.data, metadata: record.metadata, created: new Date(Number(record.created)) };
}
