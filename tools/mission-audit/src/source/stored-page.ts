import { EVENT_HASH_DATA_OPEN, EVENT_HASH_METADATA_MEMBER, eventHashInputTail, sha256Digest } from '@mission/es-kit';
import { canonicalJson } from '@mission/event-store';
import {
  HASH_WIDTH, LAYOUT_DATA_START, LAYOUT_HEAD_END, LAYOUT_METADATA_END, LAYOUT_METADATA_START, LAYOUT_RECORD_END,
  LAYOUT_RECORD_START, LAYOUT_STREAM_END, LAYOUT_WIDTH, NO_HASH, type ReadPage,
} from './reader-thread-protocol.js';

/** A row of the embedded store's `events` table (the record as SQLite returns TEXT: its UTF-8 bytes decoded). */
export type StoredRow = [position: bigint, stream: string, revision: bigint, record: string];

/*
 * The embedded store writes each record as `{"id":…,"type":…,"created":…,"metadata":<JCS>,"data":<JCS>}`
 * (libs/event-store, event-writes.ts). The audit cuts a record into these members on its bytes and hashes the
 * stored bytes of `data` and `metadata` as they are (ADR 0037): that is the service's `eventHash` whenever they
 * are what the service wrote — canonical JSON — and any other bytes give another hash, which the chain and the
 * seals then report. `data` is decoded and parsed only when a check reads it.
 */
const HEAD = Buffer.from('{"id":');
const METADATA_MEMBER = Buffer.from(EVENT_HASH_METADATA_MEMBER);
const DATA_MEMBER = Buffer.from(',"data":');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The records of a page, cut and hashed: run on the reader thread, or on the main thread with `--threads 1`.
 * Each record is written back to its UTF-8 bytes (what the store holds, for any text SQLite returns) into one
 * buffer: hashing and cutting work on bytes, and a buffer crosses to the main thread without being copied.
 */
export function storedPage(rows: readonly StoredRow[]): ReadPage {
  const count = rows.length;
  let size = 0;
  for (const row of rows) size += Buffer.byteLength(row[3], 'utf8');
  // Unpooled: its ArrayBuffer is exactly these bytes, and can be transferred to the main thread.
  const records = Buffer.allocUnsafeSlow(size);
  const page: ReadPage = {
    records: records.buffer as ArrayBuffer, layout: new Int32Array(count * LAYOUT_WIDTH),
    positions: new BigInt64Array(count), revisions: new BigInt64Array(count), streams: '', hashes: '',
  };
  let offset = 0;
  let hashes = '';
  let streams = '';
  for (let index = 0; index < count; index++) {
    const [position, streamName, revision, text] = rows[index]!;
    page.positions[index] = position;
    page.revisions[index] = revision;
    streams += streamName;
    const end = offset + records.write(text, offset, 'utf8');
    const at = index * LAYOUT_WIDTH;
    page.layout[at + LAYOUT_RECORD_START] = offset;
    page.layout[at + LAYOUT_RECORD_END] = end;
    page.layout[at + LAYOUT_STREAM_END] = streams.length;
    const hash = cutAndHash(records, offset, end, streamName, revision, page.layout, at);
    hashes += hash ?? NO_HASH;
    if (hash === undefined) page.layout[at + LAYOUT_METADATA_START] = -1;
    offset = end;
  }
  page.hashes = hashes;
  page.streams = streams;
  return page;
}

/**
 * Writes the record's member offsets into `layout` and returns its hash, or undefined when the record is not laid
 * out exactly as the store writes it (it is then parsed whole, as the store's own reader does). When this returns
 * a hash and the two members parse, `JSON.parse(record)` is exactly the head's `id`, `type` and `created` with
 * `metadata` and `data` parsed from their bytes: the head holds only those three members, and `,"metadata":`
 * cannot occur inside its strings, whose quotes are all escaped.
 */
function cutAndHash(records: Buffer, start: number, end: number, streamName: string, revision: bigint, layout: Int32Array, at: number): string | undefined {
  if (!bytesAt(records, start, end, HEAD) || records[end - 1] !== CLOSE_BRACE) return undefined;
  const metadataMember = records.indexOf(METADATA_MEMBER, start);
  if (metadataMember < 0 || metadataMember >= end) return undefined;
  const type = simpleHeadType(records, start, metadataMember) ?? parsedHeadType(records, start, metadataMember);
  if (type === undefined) return undefined;
  const metadataStart = metadataMember + METADATA_MEMBER.length;
  const metadataEnd = endOfObject(records, metadataStart, end);
  if (metadataEnd < 0 || !bytesAt(records, metadataEnd, end, DATA_MEMBER)) return undefined;
  const dataStart = metadataEnd + DATA_MEMBER.length;
  if (records[dataStart] !== OPEN_BRACE) return undefined;
  let tail: string;
  try {
    tail = eventHashInputTail(revision, streamJcs(streamName), typeJcsOf(type));
  } catch {
    return undefined; // a name JCS refuses (a lone surrogate): parsed whole, and hashed (and refused) as without this path
  }
  const hash = sha256Digest(hashInput(records, dataStart, end - 1, metadataStart, metadataEnd, tail));
  if (hash.length !== HASH_WIDTH) return undefined;
  layout[at + LAYOUT_HEAD_END] = metadataMember;
  layout[at + LAYOUT_METADATA_START] = metadataStart;
  layout[at + LAYOUT_METADATA_END] = metadataEnd;
  layout[at + LAYOUT_DATA_START] = dataStart;
  return hash;
}

let scratch = Buffer.allocUnsafeSlow(64 * 1024);
const DATA_OPEN = Buffer.from(EVENT_HASH_DATA_OPEN);

/** eventHash's input (hash-chain.ts: its open, the data, its metadata member, the metadata, its tail) from the stored bytes. */
function hashInput(records: Buffer, dataStart: number, dataEnd: number, metadataStart: number, metadataEnd: number, tail: string): Buffer {
  const needed = DATA_OPEN.length + (dataEnd - dataStart) + METADATA_MEMBER.length + (metadataEnd - metadataStart) + Buffer.byteLength(tail);
  if (needed > scratch.length) scratch = Buffer.allocUnsafeSlow(needed * 2);
  let at = DATA_OPEN.copy(scratch, 0);
  at += records.copy(scratch, at, dataStart, dataEnd);
  at += METADATA_MEMBER.copy(scratch, at);
  at += records.copy(scratch, at, metadataStart, metadataEnd);
  at += scratch.write(tail, at, 'utf8');
  return scratch.subarray(0, at);
}

/** The head's `type` by the general parser: exactly the members `id`, `type` and `created`, of their types. */
function parsedHeadType(records: Buffer, start: number, end: number): string | undefined {
  let head: Record<string, unknown>;
  try {
    head = JSON.parse(`${records.toString('utf8', start, end)}}`) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { id, type, created } = head;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof created !== 'number' || Object.keys(head).length !== 3) return undefined;
  return type;
}

const TYPE_MEMBER = Buffer.from(',"type":"');
const CREATED_MEMBER = Buffer.from(',"created":');

/**
 * The head's `type` when the head is exactly what the store writes for plain names — `{"id":"…","type":"…",
 * "created":<digits>` with no escape and no control character in either string — else undefined, and the general
 * parser decides. What this accepts, `JSON.parse` reads as the same three members with the same values.
 */
function simpleHeadType(records: Buffer, start: number, end: number): string | undefined {
  let at = start + HEAD.length;
  if (records[at] !== QUOTE) return undefined;
  at = endOfPlainString(records, at + 1, end);
  if (at < 0 || !bytesAt(records, at + 1, end, TYPE_MEMBER)) return undefined;
  const typeStart = at + 1 + TYPE_MEMBER.length;
  const typeEnd = endOfPlainString(records, typeStart, end);
  if (typeEnd < 0 || !bytesAt(records, typeEnd + 1, end, CREATED_MEMBER)) return undefined;
  at = typeEnd + 1 + CREATED_MEMBER.length;
  // A JSON integer without sign: 0, or a non-zero digit followed by digits, up to the head's end.
  if (at >= end || records[at]! < 0x30 || records[at]! > 0x39 || (records[at] === 0x30 && end - at > 1)) return undefined;
  for (let digit = at; digit < end; digit++) if (records[digit]! < 0x30 || records[digit]! > 0x39) return undefined;
  return records.toString('utf8', typeStart, typeEnd);
}

/** The index of the quote that ends a string without escapes or control characters, or -1. */
function endOfPlainString(bytes: Uint8Array, start: number, end: number): number {
  for (let index = start; index < end; index++) {
    const code = bytes[index]!;
    if (code === QUOTE) return index;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}

function bytesAt(bytes: Uint8Array, at: number, end: number, expected: Uint8Array): boolean {
  if (at + expected.length > end) return false;
  for (let index = 0; index < expected.length; index++) if (bytes[at + index] !== expected[index]) return false;
  return true;
}

/**
 * `canonicalJson` of the last stream name and of a few event types, remembered: a stream's events mostly come one after
 * the other in the global order, and a store has few event types.
 */
const lastStream = { name: '', jcs: '""' };
const typeJcs = new Map<string, string>();
const MAX_TYPES_REMEMBERED = 256;

function streamJcs(name: string): string {
  if (name !== lastStream.name) {
    lastStream.jcs = canonicalJson(name);
    lastStream.name = name;
  }
  return lastStream.jcs;
}

function typeJcsOf(type: string): string {
  let jcs = typeJcs.get(type);
  if (jcs === undefined) {
    jcs = canonicalJson(type);
    if (typeJcs.size < MAX_TYPES_REMEMBERED) typeJcs.set(type, jcs);
  }
  return jcs;
}

/**
 * The index just after the JSON object starting at `start` (brackets counted outside strings), or -1. It only
 * finds where the object would end; whether the bytes there are JSON is for `JSON.parse` to say. UTF-8 never
 * uses bytes below 0x80 inside a multi-byte character, so quotes, backslashes and brackets are found as bytes.
 */
function endOfObject(bytes: Uint8Array, start: number, end: number): number {
  if (bytes[start] !== OPEN_BRACE) return -1;
  let depth = 0;
  let inString = false;
  for (let index = start; index < end; index++) {
    const code = bytes[index]!;
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}
