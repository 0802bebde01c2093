import { IdempotencyConflictError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import type { JsonObject } from '../shared/json.js';
import type { IdempotencyCaller } from './idempotency-key.js';

/** Spec 4.2 rule 2 / spec 8: results are kept at least 24 hours. */
export const IDEMPOTENCY_MIN_RETENTION_SECONDS = 86_400;

export interface NoRequestRecord {
  readonly status: 'none';
}

export interface RequestRecord {
  readonly status: 'recorded';
  readonly key: string;
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  readonly contentDigest: string;
  readonly result: JsonObject;
  readonly recordedAt: Date;
}

export type IdempotencyState = NoRequestRecord | RequestRecord;

export const initialIdempotencyState: IdempotencyState = { status: 'none' };

/**
 * Spec 4.2 rule 2, looked up before deciding anything: the stored result when this (caller,
 * `request_id`) was already answered with the same content — return it and decide nothing — or
 * `undefined` for a first request.
 *
 * @throws IdempotencyConflictError (409) when the `request_id` was used with different content
 */
export function idempotentReplay(state: IdempotencyState, contentDigest: string): JsonObject | undefined {
  if (state.status === 'none') return undefined;
  if (state.contentDigest !== contentDigest) throw new IdempotencyConflictError();
  return state.result;
}

/**
 * Whether the record is still within its retention period at `now` — a cleanup may delete it only
 * when this is false. `retentionSeconds` is the deployment's policy: at least 24 hours (spec 8); by
 * default unlimited (DESIGN 3.3: kept for the log's lifetime).
 */
export function isRetained(state: IdempotencyState, now: Date, retentionSeconds = Number.POSITIVE_INFINITY): boolean {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new InvalidCommandError('now must be a valid Date');
  if (typeof retentionSeconds !== 'number' || Number.isNaN(retentionSeconds) || retentionSeconds < IDEMPOTENCY_MIN_RETENTION_SECONDS) {
    throw new InvalidCommandError(`idempotency retention must be at least ${IDEMPOTENCY_MIN_RETENTION_SECONDS} seconds`);
  }
  if (state.status === 'none') return false;
  return now.getTime() < state.recordedAt.getTime() + retentionSeconds * 1000;
}
