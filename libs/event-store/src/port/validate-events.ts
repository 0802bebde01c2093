import { randomUUID } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { MAX_STREAMS_PER_APPEND, type EventData, type ExpectedRevision, type StreamAppend } from './event-store.js';
import { InvalidEventError, InvalidStreamNameError } from './errors.js';
import { isValidStreamName } from './stream-name.js';

/**
 * Both adapters refuse the same inputs before anything is written, so a caller sees one behaviour
 * whatever the store. The byte cap stays under EventStoreDB's default `MaxAppendSize` (1 MiB),
 * which counts protobuf framing on top of our JSON.
 */
export const MAX_APPEND_BYTES = 1_000_000;
export const MAX_EVENTS_PER_APPEND = 10_000;
const EVENT_TYPE = /^[A-Z][A-Za-z0-9]{0,127}$/;

export function isValidEventType(type: unknown): type is string {
  return typeof type === 'string' && EVENT_TYPE.test(type);
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_DEPTH = 64;

/** An event as it goes to storage: JSON already serialized exactly once. */
export interface SerializedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

export function assertStreamName(streamName: string): void {
  if (typeof streamName !== 'string' || !isValidStreamName(streamName)) throw new InvalidStreamNameError(String(streamName));
}

export function assertExpectedRevision(expected: ExpectedRevision): void {
  if (expected === 'no_stream' || expected === 'stream_exists' || expected === 'any') return;
  if (typeof expected !== 'bigint' || expected < 0n || expected > 0x7fff_ffff_ffff_ffffn) {
    throw new InvalidEventError(`expectedRevision must be no_stream, stream_exists, any or a bigint ≥ 0; got ${String(expected)}`);
  }
}

export function serializeEvents(streamName: string, events: readonly EventData[]): SerializedEvent[] {
  assertStreamName(streamName);
  if (!Array.isArray(events) || events.length === 0) throw new InvalidEventError('an append needs at least one event');
  if (events.length > MAX_EVENTS_PER_APPEND) throw new InvalidEventError(`at most ${MAX_EVENTS_PER_APPEND} events per append`);
  let bytes = 0;
  const serialized = events.map((event, index) => {
    const where = `event #${index} for ${streamName}`;
    if (typeof event?.type !== 'string' || !EVENT_TYPE.test(event.type)) {
      throw new InvalidEventError(`${where}: type must be a PascalCase name, got ${JSON.stringify(event?.type)}`);
    }
    if (event.id !== undefined && (typeof event.id !== 'string' || !UUID.test(event.id))) {
      throw new InvalidEventError(`${where}: id must be a lower-case UUID`);
    }
    const data = toJsonText(event.data, `${where} data`);
    const metadata = toJsonText(event.metadata ?? {}, `${where} metadata`);
    bytes += Buffer.byteLength(data, 'utf8') + Buffer.byteLength(metadata, 'utf8');
    return { id: event.id ?? randomUUID(), type: event.type, data, metadata };
  });
  if (bytes > MAX_APPEND_BYTES) throw new InvalidEventError(`append of ${bytes} bytes exceeds the ${MAX_APPEND_BYTES}-byte limit`);
  return serialized;
}

function toJsonText(value: unknown, where: string): string {
  if (!isPlainObject(value)) throw new InvalidEventError(`${where} must be a JSON object`);
  assertJson(value, where, 0);
  // Stored in RFC 8785 form (sorted members): the same JSON value, and on replay the hash chain's
  // canonicalJson is then a plain JSON.stringify (canonical-json.ts, ADR 0005).
  return canonicalJson(value);
}

/** Refuses what JSON.stringify would silently change or drop (NaN → null, Date → string, bigint → throw). */
function assertJson(value: unknown, where: string, depth: number): void {
  if (depth > MAX_DEPTH) throw new InvalidEventError(`${where} nests deeper than ${MAX_DEPTH}`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidEventError(`${where} holds a non-finite number`);
      return;
    case 'bigint':
      throw new InvalidEventError(`${where} holds a bigint; encode it as a decimal string`);
    case 'object':
      if (value === null) return;
      if (Array.isArray(value)) {
        for (const item of value) {
          if (item === undefined) throw new InvalidEventError(`${where} holds undefined in an array`);
          assertJson(item, where, depth + 1);
        }
        return;
      }
      if (!isPlainObject(value)) throw new InvalidEventError(`${where} holds a non-plain object (${value.constructor?.name ?? 'unknown'})`);
      for (const member of Object.values(value)) {
        if (member !== undefined) assertJson(member, where, depth + 1);
      }
      return;
    default:
      throw new InvalidEventError(`${where} holds a ${typeof value}`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A validated `appendToStreams` request: every append serialized and checked before anything is written. */
export interface SerializedStreamAppend {
  readonly streamName: string;
  readonly events: SerializedEvent[];
  readonly expected: ExpectedRevision;
}

export function serializeStreamAppends(appends: readonly StreamAppend[]): SerializedStreamAppend[] {
  if (!Array.isArray(appends)) throw new InvalidEventError('appendToStreams needs an array of appends');
  if (appends.length > MAX_STREAMS_PER_APPEND) throw new InvalidEventError(`at most ${MAX_STREAMS_PER_APPEND} streams per appendToStreams`);
  return appends.map((append) => {
    const expected = append.expectedRevision ?? 'any';
    const events = serializeEvents(append.streamName, append.events);
    assertExpectedRevision(expected);
    return { streamName: append.streamName, events, expected };
  });
}

/** The names of one `expireStreams` call: valid stream names, at most MAX_STREAMS_PER_APPEND. */
export function assertExpirable(streamNames: readonly string[]): void {
  if (!Array.isArray(streamNames)) throw new InvalidEventError('expireStreams takes an array of stream names');
  if (streamNames.length > MAX_STREAMS_PER_APPEND) throw new InvalidEventError(`at most ${MAX_STREAMS_PER_APPEND} streams per expireStreams call, got ${streamNames.length}`);
  for (const name of streamNames) assertStreamName(name);
}
