/**
 * The values this adapter uses from `@eventstore/db-client`, in one place.
 *
 * The client is CommonJS. Node's ESM loader detects its named exports today only through
 * cjs-module-lexer heuristics on TypeScript's `__exportStar` output; the default import (the whole
 * `module.exports`) does not depend on them, so a client rebuild cannot break start-up.
 */
import esdb from '@eventstore/db-client';

export const {
  EventStoreDBClient,
  convertToCommandError,
  isCommandError,
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  InvalidArgumentError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  StreamDeletedError: ClientStreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError: ClientWrongExpectedVersionError,
  START,
  END,
  FORWARDS,
  BACKWARDS,
} = esdb;

/** Spelled out: its inferred type names option interfaces the client does not export. */
export const streamNameFilter: typeof esdb.streamNameFilter = esdb.streamNameFilter;
export const eventTypeFilter: typeof esdb.eventTypeFilter = esdb.eventTypeFilter;

export type EsdbClient = InstanceType<typeof EventStoreDBClient>;
