import type { Position, RecordedEvent } from '@mission/event-store';

/** What the audit reads; nothing here can write. */
export interface AuditSource {
  readonly description: string;
  /** The global order, strictly after `after` when given. */
  readAll(after?: Position): AsyncIterable<RecordedEvent>;
  /**
   * The same events in pages (never empty, in order): one await per page instead of one per event, for
   * the full passes of `verify` (ADR 0029, Speed).
   */
  readAllPages(after?: Position): AsyncIterable<EventPage>;
  /** One stream forwards; empty when it does not exist or was tombstoned. */
  readStream(streamName: string): AsyncIterable<RecordedEvent>;
  /** True when the stream was hard-deleted (erasure by design, e.g. a mission body: ADR 0019). */
  isTombstoned(streamName: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface EventPage {
  readonly events: readonly RecordedEvent[];
  /**
   * Each event's hash (`eventHash`), where the source computed it while reading (the embedded store's reader
   * thread hashes the stored bytes, ADR 0037); undefined: the caller hashes the event.
   */
  readonly hashes?: readonly (string | undefined)[];
}

/** The store cannot be read at all: exit 2. */
export class SourceUnavailableError extends Error {}
