import { IdempotencyConflictError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import type { JsonObject } from '../shared/json.js';
import type { IdempotencyCaller } from './idempotency-key.js';

/** Spec 4.2 rule 2 / spec 8: results are kept at least 24 hours. */
export const IDEMPOTENCY_MIN_RETENTION_SECONDS = 86_400;

export interface NoRequestRecord {
  readonly status: 'none';
}

interface RequestRecordBase {
  readonly key: string;
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  readonly contentDigest: string;
}

/** Spec 4.2 rule 2 (ADR 0017): claimed by one content, its result not recorded yet (in flight, or interrupted). */
export interface ClaimedRequest extends RequestRecordBase {
  readonly status: 'claimed';
  readonly claimedAt: Date;
}

export interface RequestRecord extends RequestRecordBase {
  readonly status: 'recorded';
  readonly result: JsonObject;
  readonly recordedAt: Date;
}

export type IdempotencyState = NoRequestRecord | ClaimedRequest | RequestRecord;

export const initialIdempotencyState: IdempotencyState = { status: 'none' };

/**
 * Spec 4.2 rule 2, looked up before deciding anything: the stored result when this (caller,
 * `request_id`) was already answered with the same content — return it and decide nothing — or
 * `undefined` when there is no result yet (a first request, or one claimed by the same content whose
 * result is not recorded yet: the caller completes it).
 *
 * @throws IdempotencyConflictError (409) when the `request_id` was claimed or used with different content
 */
export function idempotentReplay(state: IdempotencyState, contentDigest: string): JsonObject | undefined {
  if (state.status === 'none') return undefined;
  if (state.contentDigest !== contentDigest) throw new IdempotencyConflictError();
  return state.status === 'recorded' ? state.result : undefined;
}

/**
 * Whether the record is still within its retention period at `now` — a cleanup may delete it only
 * when this is false. `retentionSeconds` is the deployment's policy: at least 24 hours (spec 8); by
 * default unlimited (DESIGN 3.3: kept for the log's lifetime). A claim without a result counts from
 * its claim.
 */
export function isRetained(state: IdempotencyState, now: Date, retentionSeconds = Number.POSITIVE_INFINITY): boolean {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new InvalidCommandError('now must be a valid Date');
  if (typeof retentionSeconds !== 'number' || Number.isNaN(retentionSeconds) || retentionSeconds < IDEMPOTENCY_MIN_RETENTION_SECONDS) {
    throw new InvalidCommandError(`idempotency retention must be at least ${IDEMPOTENCY_MIN_RETENTION_SECONDS} seconds`);
  }
  if (state.status === 'none') return false;
  const since = state.status === 'recorded' ? state.recordedAt : state.claimedAt;
  return now.getTime() < since.getTime() + retentionSeconds * 1000;
}
