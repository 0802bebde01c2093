import type { DomainEvent } from '@mission/decider';
import type { JsonObject } from '../shared/json.js';

/** Members both idempotency events carry. */
interface IdempotencyEventData {
  /** `idempotencyKey(caller, request_id)`: the stream's id. */
  readonly key: string;
  readonly caller: { readonly id: string; readonly role: string };
  readonly request_id: string;
  readonly content_digest: string;
}

/** Spec 4.2 rule 2 (ADR 0017): the (caller, `request_id`) belongs to this content from now on; written before the request acts. */
export interface RequestClaimedData extends IdempotencyEventData {
  readonly claimed_at: string;
}

export interface RequestResultRecordedData extends IdempotencyEventData {
  readonly result: JsonObject;
  /** Retention (≥ 24 h, spec 4.2 rule 2 / spec 8) counts from here. */
  readonly recorded_at: string;
}

export type RequestClaimed = DomainEvent<'RequestClaimed', RequestClaimedData>;
export type RequestResultRecorded = DomainEvent<'RequestResultRecorded', RequestResultRecordedData>;
export type IdempotencyEvent = RequestClaimed | RequestResultRecorded;

export const IDEMPOTENCY_EVENT_TYPES = ['RequestClaimed', 'RequestResultRecorded'] as const satisfies readonly IdempotencyEvent['type'][];
