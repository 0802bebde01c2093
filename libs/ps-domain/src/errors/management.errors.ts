import { PsDomainError } from './ps-domain.error.js';

/** The spec 7 error codes this domain produces (plus `mission_terminated` of the base protocol). */
export type ManagementErrorCode =
  | 'invalid_request'
  | 'invalid_mission_reference'
  | 'invalid_termination_reason'
  | 'idempotency_conflict'
  | 'mission_not_found'
  | 'mission_terminated';

/** Codes of the proposal endpoints (DESIGN 3.1), outside spec 7. */
export type ProposalErrorCode = 'not_found';

/**
 * A refusal the protocol defines (spec 7): `code` is the `error` member, `status` the HTTP status,
 * `members` any further body members. The message is the safe `error_description`.
 */
export abstract class ManagementError extends PsDomainError {
  abstract readonly code: ManagementErrorCode | ProposalErrorCode;
  abstract readonly status: number;
  /** Further members of the problem body (none unless a subclass says so). */
  get members(): Readonly<Record<string, string>> {
    return {};
  }
}

/** Spec 7 `invalid_request` (400): JSON or required members invalid, including an unusable `replacement_s256`. */
export class InvalidRequestError extends ManagementError {
  readonly code = 'invalid_request';
  readonly status = 400;
}

/** Spec 7 `invalid_mission_reference` (400): the reference's syntax (spec 2.1) is wrong. */
export class InvalidMissionReferenceError extends ManagementError {
  readonly code = 'invalid_mission_reference';
  readonly status = 400;

  constructor(message = 'mission_s256 is not a valid Mission Reference digest') {
    super(message);
  }
}

/** Spec 7 `invalid_termination_reason` (400), spec 4.2 rule 4: a reason unknown or not permitted for the caller's role. */
export class InvalidTerminationReasonError extends ManagementError {
  readonly code = 'invalid_termination_reason';
  readonly status = 400;

  constructor(message = 'the termination reason is unknown or not permitted for the caller') {
    super(message);
  }
}

/** Spec 7 `idempotency_conflict` (409), spec 4.2 rule 2: `request_id` reused with different content. */
export class IdempotencyConflictError extends ManagementError {
  readonly code = 'idempotency_conflict';
  readonly status = 409;

  constructor() {
    super('request_id was already used with different content');
  }
}

/**
 * Spec 7 `mission_not_found` (404): the mission is absent OR the caller may not know it exists. Spec 5.9
 * (anti-oracle): the response must be identical for both, so the message is fixed; `auditDetail` says
 * which held and is for the security audit log only — never put it in a response.
 */
export class MissionNotFoundError extends ManagementError {
  readonly code = 'mission_not_found';
  readonly status = 404;

  constructor(readonly auditDetail: 'absent' | 'not_authorized' = 'absent') {
    super('mission not found');
  }
}

/**
 * The base protocol's `mission_terminated` (DESIGN 3.1: 403 with `mission_status` and
 * `termination_reason`): another PS operation under a terminated mission (spec 3 rule 3).
 */
export class MissionTerminatedError extends ManagementError {
  readonly code = 'mission_terminated';
  readonly status = 403;

  constructor(readonly terminationReason: string) {
    super('the mission is terminated');
  }

  override get members(): Readonly<Record<string, string>> {
    return { mission_status: 'terminated', termination_reason: this.terminationReason };
  }
}
