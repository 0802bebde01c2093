import type { EventStore } from '@mission/event-store';
import { evolveTrackedTokensMany, tokensStreamName, trackedTokenDecider, type TrackedTokenCommand, type TrackedTokenEvent, type TrackedTokensState } from '@mission/ps-domain';
import { GroupCommitStream, type GroupCommitResult } from './group-commit-stream.js';

export type LedgerResult = GroupCommitResult<TrackedTokenEvent, TrackedTokensState>;

/**
 * The Tracked Auth Tokens of each mission (`pstokens-<s256>`, spec 2.6), keyed by `mission_s256`,
 * decided by the ps-domain `trackedTokenDecider`, hash-chained like every mission log stream (DESIGN 1),
 * cached and group-committed (see {@link GroupCommitStream}); folds copy the token map once per batch.
 */
export class TokenLedger extends GroupCommitStream<TrackedTokenCommand, TrackedTokenEvent, TrackedTokensState> {
  constructor(store: EventStore) {
    super(store, trackedTokenDecider, tokensStreamName, { hashChain: true, evolveMany: evolveTrackedTokensMany });
  }
}
