import type { JsonObject } from '../shared/json.js';
import type { IdempotencyCaller } from './idempotency-key.js';

/**
 * Spec 4.2 rule 2: records the result of the first request with this (caller, `request_id`) on
 * `psidem-<idempotencyKey(caller, requestId)>`. The same content again decides nothing (the stored
 * result stands); different content is IdempotencyConflictError.
 */
export interface RecordRequestResult {
  readonly type: 'record';
  readonly caller: IdempotencyCaller;
  readonly requestId: string;
  /** `requestContentDigest(...)` of the request. */
  readonly contentDigest: string;
  /** The response body to return to every identical repeat. */
  readonly result: JsonObject;
  readonly now: Date;
}

export type IdempotencyCommand = RecordRequestResult;
