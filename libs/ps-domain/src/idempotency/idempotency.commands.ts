import type { JsonObject } from '../shared/json.js';
import type { IdempotencyCaller } from './idempotency-key.js';

/**
 * Spec 4.2 rule 2 (ADR 0017): claims (caller, `request_id`) for one request content **before** the
 * request changes anything. Appended with the expected revision of `psidem-<key>`, so of two first
 * requests with the same key exactly one claim is written; the other then reads it: the same content
 * decides nothing (it completes the claimed request), different content is IdempotencyConflictError —
 * before its mission is touched.
 */
export interface ClaimRequest {
  readonly type: 'ClaimRequest';
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  /** `requestContentDigest(...)` of the request. */
  readonly contentDigest: string;
  readonly now: Date;
}

/**
 * Spec 4.2 rule 2: records the result of the claimed request on `psidem-<idempotencyKey(caller,
 * requestId)>`. The same content again decides nothing (the stored result stands); different content is
 * IdempotencyConflictError.
 */
export interface RecordRequestResult {
  readonly type: 'RecordRequestResult';
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  /** `requestContentDigest(...)` of the request. */
  readonly contentDigest: string;
  /** The response body to return to every identical repeat. */
  readonly result: JsonObject;
  readonly now: Date;
}

export type IdempotencyCommand = ClaimRequest | RecordRequestResult;
