/** What the reader thread (ADR 0037) is started with. */
export interface ReaderThreadData {
  readonly path: string;
  readonly lockTimeoutMs: number;
  /** Read positions strictly after this one … */
  readonly after: bigint;
  /** … up to and including this one: the end of the main thread's snapshot, so both see the same range. */
  readonly through: bigint;
  readonly rows: number;
}

/**
 * One page of stored records, cut and hashed (stored-page.ts), as a few large values: the reader thread transfers
 * the buffers to the main thread without copying them, and copying costs per value.
 */
export interface ReadPage {
  /** Every record's stored bytes, one after the other. */
  records: ArrayBuffer;
  /** Per event LAYOUT_WIDTH byte offsets into `records`: see the LAYOUT_* indexes. */
  layout: Int32Array;
  positions: BigInt64Array;
  revisions: BigInt64Array;
  /** Every event's stream name, one after the other: LAYOUT_STREAM_END says where each ends. */
  streams: string;
  /** HASH_WIDTH characters per event: its `eventHash`, or NO_HASH where the record is parsed whole. */
  hashes: string;
}

export const LAYOUT_WIDTH = 7;
export const LAYOUT_RECORD_START = 0;
export const LAYOUT_RECORD_END = 1;
/** Where `,"metadata":` starts: the head `{"id":…,"type":…,"created":…` lies before it. */
export const LAYOUT_HEAD_END = 2;
/** -1: the record is not laid out as the store writes it; it is parsed whole, and hashed from its values. */
export const LAYOUT_METADATA_START = 3;
export const LAYOUT_METADATA_END = 4;
/** `data` runs from here to the byte before the record's closing brace. */
export const LAYOUT_DATA_START = 5;
/** An offset into `streams`, not `records`. */
export const LAYOUT_STREAM_END = 6;

/** `sha-256:` and 43 base64url characters. */
export const HASH_WIDTH = 51;
export const NO_HASH = ' '.repeat(HASH_WIDTH);
