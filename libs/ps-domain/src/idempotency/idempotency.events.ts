import type { DomainEvent } from '@mission/decider';
import type { JsonObject } from '../shared/json.js';

export interface RequestResultRecordedData {
  /** `idempotencyKey(caller, request_id)`: the stream's id. */
  readonly key: string;
  readonly caller: { readonly id: string; readonly role: string };
  readonly request_id: string;
  readonly content_digest: string;
  readonly result: JsonObject;
  /** Retention (≥ 24 h, spec 4.2 rule 2 / spec 8) counts from here. */
  readonly recorded_at: string;
}

export type RequestResultRecorded = DomainEvent<'RequestResultRecorded', RequestResultRecordedData>;
export type IdempotencyEvent = RequestResultRecorded;

export const IDEMPOTENCY_EVENT_TYPES = ['RequestResultRecorded'] as const satisfies readonly IdempotencyEvent['type'][];
