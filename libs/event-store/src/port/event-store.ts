import type { StreamDeletedError, WrongExpectedRevisionError } from './errors.js';
import type { Position } from './position.js';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * What the caller asserts about the stream before appending:
 * - `no_stream`: the stream must not exist yet;
 * - `stream_exists`: it must exist (any revision);
 * - `any`: no check;
 * - a bigint: the revision of the stream's last event (revisions count from 0).
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export interface EventData {
  /** Past-tense PascalCase constant, e.g. `ChildMissionCreated` (DESIGN 1). */
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata?: JsonObject;
  /** UUID; generated when absent. */
  readonly id?: string;
}

export interface RecordedEvent<Data extends JsonObject = JsonObject> {
  readonly streamName: string;
  readonly revision: bigint;
  readonly position: Position;
  readonly id: string;
  readonly type: string;
  readonly data: Data;
  readonly metadata: JsonObject;
  readonly created: Date;
}

export interface AppendResult {
  /** Revision of the last event written; pass it as the next `expectedRevision`. */
  readonly nextExpectedRevision: bigint;
  /** Global position of the last event written. */
  readonly position: Position;
}

/** When an append is answered: once durable, or once committed (ADR 0067, `AppendOptions.acknowledge`). */
export type Acknowledgement = 'durable' | 'committed';

export interface AppendOptions {
  readonly expectedRevision?: ExpectedRevision;
  /**
   * When the append's promise resolves (ADR 0067):
   * - `durable` (default): once the events are on disk, as every store acknowledges a write;
   * - `committed`: once the store accepted them (expected revision checked, visible to later appends), possibly
   *   before they are on disk. Only for writes whose effect leaves the process through an answer that waits for
   *   `whenDurable()` first (the services' HTTP layer does): a request's replay records are checked at commit and
   *   made durable together with the request's last write, one disk wait instead of one per record.
   *   EventStoreDB acknowledges only durable writes; there it means `durable`.
   */
  readonly acknowledge?: Acknowledgement;
}

/** One stream's part of `appendToStreams`. */
export interface StreamAppend {
  readonly streamName: string;
  readonly events: readonly EventData[];
  readonly expectedRevision?: ExpectedRevision;
}

/** A stream's append either committed, or was refused by its own expected revision or a tombstone. */
export type StreamAppendOutcome =
  | { readonly ok: true; readonly result: AppendResult }
  | { readonly ok: false; readonly error: WrongExpectedRevisionError | StreamDeletedError };

/** Most streams one `appendToStreams` call may write. */
export const MAX_STREAMS_PER_APPEND = 1_000;

export interface ReadStreamOptions {
  readonly direction?: 'forwards' | 'backwards';
  /** Inclusive. Defaults to the start (forwards) or the end (backwards). */
  readonly fromRevision?: bigint | 'start' | 'end';
  readonly maxCount?: number;
}

export interface AllFilter {
  /** Only streams named `<category>-…` for one of these categories. */
  readonly streamCategories?: readonly string[];
  /**
   * Only events whose type is one of these (exact match); combined with `streamCategories` by AND.
   * A consumer that acts on a few event types of a busy category (a process manager waiting for
   * `MissionTerminated` among thousands of logged reads) is then never handed the rest: the embedded
   * store reads an index on (type, position), EventStoreDB filters on the server (ADR 0055).
   */
  readonly eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Defaults to the beginning. */
  readonly after?: Position;
  readonly maxCount?: number;
  readonly filter?: AllFilter;
}

export interface SubscribeToAllOptions {
  /** Exclusive: the last position already processed (a stored checkpoint). */
  readonly after?: Position;
  readonly filter?: AllFilter;
}

/** A catch-up subscription: historical events first, then live ones, until `close()`. */
export interface AllSubscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

/** Last-processed positions of named consumers (projections, process managers). */
export interface CheckpointStore {
  load(consumer: string): Promise<Position | undefined>;
  save(consumer: string, position: Position): Promise<void>;
}

export interface EventStore {
  readonly kind: 'embedded' | 'eventstoredb';
  readonly checkpoints: CheckpointStore;

  /** Atomically appends `events` (all or nothing). Throws WrongExpectedRevisionError, StreamDeletedError, InvalidEventError. */
  appendToStream(streamName: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;

  /**
   * Appends to several streams in one call, in the order given (positions increase in that order).
   * Each stream's append is atomic and checked against its own expected revision exactly as
   * `appendToStream`; a refusal (WrongExpectedRevisionError, StreamDeletedError) is reported in that
   * stream's outcome and does not undo the others. NOT atomic across streams. Every append is validated
   * before anything is written (InvalidEventError, InvalidStreamNameError are thrown); at most
   * MAX_STREAMS_PER_APPEND appends. The embedded store commits them all in one transaction (one fsync);
   * EventStoreDB appends them one after another. Any other failure rejects the call; on EventStoreDB
   * the appends before it may then have been committed (callers retry idempotently, as for one stream).
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]>;

  /** Reads one stream; a stream that does not exist reads as empty; a tombstoned one throws StreamDeletedError. */
  readStream(streamName: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;

  /** Revision of the stream's last event, `no_stream`, or throws StreamDeletedError. */
  streamRevision(streamName: string): Promise<bigint | 'no_stream'>;

  /** Reads the global order forwards. System events of the underlying store are never returned. */
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>;

  /** Position of the newest event (matching the filter), or undefined when there is none. */
  headPosition(filter?: AllFilter): Promise<Position | undefined>;

  subscribeToAll(options?: SubscribeToAllOptions): AllSubscription;

  /** Hard delete: the stream's events become unreadable and the name can never be written again. */
  tombstoneStream(streamName: string, options?: AppendOptions): Promise<void>;

  /**
   * Removes streams and their events (at most MAX_STREAMS_PER_APPEND names per call; absent or tombstoned ones
   * are skipped). Unlike `tombstoneStream` a name may be written again afterwards, so use it only for records
   * whose protection has ended by time — replay records past their acceptance window (ADR 0057). Embedded: the
   * rows are deleted; EventStoreDB: a soft delete (the events go at the next scavenge).
   */
  expireStreams(streamNames: readonly string[]): Promise<void>;

  /**
   * Resolves once every write acknowledged so far (`acknowledge: 'committed'` ones too) is durable; rejects with
   * EventStoreUnavailableError when that can no longer happen (a failed fsync). Undefined when nothing is waiting,
   * so that a caller on a hot path pays no promise turn. (ADR 0067)
   */
  whenDurable(): Promise<void> | undefined;

  /** Resolves when the store answers; throws EventStoreUnavailableError otherwise. */
  ping(): Promise<void>;

  close(): Promise<void>;
}
