import { status } from '@grpc/grpc-js';
import type { ExpectedRevision } from '../port/event-store.js';
import {
  EventStoreError, EventStoreUnavailableError, InvalidEventError, StreamDeletedError, WrongExpectedRevisionError,
} from '../port/errors.js';
import {
  AccessDeniedError, CancelledError, ClientStreamDeletedError, ClientWrongExpectedVersionError, DeadlineExceededError,
  InvalidArgumentError, MaxAppendSizeExceededError, NotLeaderError, StreamNotFoundError, TimeoutError, UnavailableError, convertToCommandError, isCommandError,
} from './esdb-client.js';

export interface ErrorContext {
  readonly operation: string;
  readonly streamName?: string;
  /** What the caller asked for: reported as is rather than the server's numeric encoding of it. */
  readonly expected?: ExpectedRevision;
}

/**
 * Translates whatever the client throws into the port's errors, so callers never see client types.
 *
 * Transport failures (server down, leader change, deadline, a server-side cancel) become
 * EventStoreUnavailableError: they are safe to retry once the client has reconnected, which it
 * does by itself on the next call.
 */
export function toPortError(error: unknown, context: ErrorContext): Error {
  if (error instanceof EventStoreError) return error;
  const converted = isTransportShaped(error) ? convertToCommandError(error) : error;
  const where = context.streamName ? `${context.operation} ${context.streamName}` : context.operation;

  if (converted instanceof ClientWrongExpectedVersionError) {
    const actual = converted.actualVersion;
    return new WrongExpectedRevisionError(
      context.streamName ?? converted.streamName,
      context.expected ?? fromClientExpected(converted.expectedVersion),
      // The server encodes "no stream" as a missing or negative actual version.
      typeof actual === 'bigint' && actual >= 0n ? actual : 'no_stream',
    );
  }
  if (converted instanceof ClientStreamDeletedError) return new StreamDeletedError(context.streamName ?? converted.streamName);
  if (
    converted instanceof UnavailableError ||
    converted instanceof CancelledError ||
    converted instanceof DeadlineExceededError ||
    converted instanceof TimeoutError ||
    converted instanceof NotLeaderError ||
    isDiscoveryFailure(converted)
  ) {
    return new EventStoreUnavailableError(`EventStoreDB unavailable during ${where}: ${messageOf(converted)}`, { cause: error });
  }
  if (converted instanceof MaxAppendSizeExceededError) {
    return new InvalidEventError(`${where}: EventStoreDB refused the append as too large (max ${converted.maxAppendSize} bytes)`);
  }
  if (converted instanceof AccessDeniedError) {
    return new EventStoreError(`${where}: access denied by EventStoreDB; check the connection string's credentials and stream ACLs`, { cause: error });
  }
  return new EventStoreError(`${where} failed: ${messageOf(converted)}`, { cause: error });
}

export function isStreamNotFound(error: unknown): boolean {
  return error instanceof StreamNotFoundError;
}

/**
 * A subscription failure worth re-subscribing after: anything the server or the transport reports,
 * except a refusal that retrying cannot fix (bad request, unknown position, no permission).
 * Errors of our own (a foreign event we cannot map) are not retried either: re-reading would hit
 * them again.
 */
export function isRetryableSubscriptionError(error: unknown): boolean {
  const converted = isTransportShaped(error) ? convertToCommandError(error) : error;
  if (!(converted instanceof Error) || !isCommandError(converted)) return false;
  if (converted instanceof AccessDeniedError || converted instanceof InvalidArgumentError) return false;
  return !NOT_RETRYABLE_CODES.has((converted as { code?: unknown }).code as status);
}

const NOT_RETRYABLE_CODES = new Set<status>([
  status.INVALID_ARGUMENT,
  status.OUT_OF_RANGE,
  status.PERMISSION_DENIED,
  status.UNAUTHENTICATED,
  status.UNIMPLEMENTED,
]);

function fromClientExpected(expected: unknown): ExpectedRevision {
  if (expected === 'no_stream' || expected === 'stream_exists' || expected === 'any') return expected;
  if (typeof expected === 'bigint') {
    if (expected === -1n) return 'no_stream';
    if (expected === -2n) return 'any';
    if (expected === -4n) return 'stream_exists';
    return expected;
  }
  return 'any';
}

function isTransportShaped(error: unknown): error is Error {
  return error instanceof Error && !isCommandError(error) && ('metadata' in error || typeof (error as { code?: unknown }).code === 'number');
}

/** The client throws a plain Error when gossip discovery of a cluster gives up. */
function isDiscoveryFailure(error: unknown): boolean {
  return error instanceof Error && /^Failed to discover after \d+ attempts/.test(error.message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
