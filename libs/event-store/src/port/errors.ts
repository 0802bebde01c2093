import type { ExpectedRevision } from './event-store.js';

/** Base of every error the event-store port raises; adapters translate their own errors into these. */
export class EventStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Optimistic-concurrency failure: the stream was not at the revision the caller decided on. */
export class WrongExpectedRevisionError extends EventStoreError {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** Revision the stream is at, or `no_stream` when it does not exist. */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The stream was deleted with a tombstone: it can be neither read nor written again. */
export class StreamDeletedError extends EventStoreError {
  constructor(readonly streamName: string) {
    super(`stream ${streamName} is deleted (tombstoned)`);
  }
}

/** The caller handed the store something it refuses to store (bad type, non-JSON data, too large…). */
export class InvalidEventError extends EventStoreError {}

export class InvalidStreamNameError extends EventStoreError {
  constructor(readonly streamName: string) {
    super(`invalid stream name: ${JSON.stringify(streamName)}`);
  }
}

/** The store cannot be reached or refused the connection; safe to retry later. */
export class EventStoreUnavailableError extends EventStoreError {}

/** The store's files are unreadable, corrupt, locked by another process or of an unknown schema. */
export class EventStoreStartupError extends EventStoreError {}
