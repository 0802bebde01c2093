import { ProblemError, type ProblemOptions } from './problem-error.js';

/**
 * The Person Server's protocol errors: one class per `error` code (spec 7, DESIGN 3.1), each answered as
 * problem+json (see ProblemError). `SignatureVerificationProblem` (401, the Signature-Key draft's codes) is in
 * signature-verification.problem.ts. Refusals of `@mission/ps-domain` become these in one table,
 * problem-table.ts; the one exception filter, problem.filter.ts, sends them.
 */

/** Spec 7 `invalid_request` (400): JSON or required members invalid, including a missing or unusable `replacement_s256` (spec 4.2 rule 1); the detail names the check. */
export class InvalidRequestProblem extends ProblemError {
  constructor(detail = 'the request is invalid', options?: ProblemOptions) {
    super(400, 'invalid_request', detail, options);
  }
}

/** Spec 7 `invalid_mission_reference` (400): the reference's syntax or the local approver check failed (spec 2.1). */
export class InvalidMissionReferenceProblem extends ProblemError {
  constructor(detail = 'mission_s256 is not a valid Mission Reference', options?: ProblemOptions) {
    super(400, 'invalid_mission_reference', detail, options);
  }
}

/** Spec 7 `unsupported_operation` (400): the `operation` is not one this PS implements (spec 4). */
export class UnsupportedOperationProblem extends ProblemError {
  constructor(detail = 'the operation is not supported', options?: ProblemOptions) {
    super(400, 'unsupported_operation', detail, options);
  }
}

/** Spec 7 `invalid_termination_reason` (400): the reason is unknown or not permitted for the caller (spec 4.2 rule 4, 5.4). */
export class InvalidTerminationReasonProblem extends ProblemError {
  constructor(detail = 'the termination reason is unknown or not permitted for the caller', options?: ProblemOptions) {
    super(400, 'invalid_termination_reason', detail, options);
  }
}

/**
 * `403 access_denied`: the caller's kind may not make this request at all, decided before any lookup —
 * proposing a mission is an agent's request (DESIGN 3.1); only an Owning Agent, not a Management Principal
 * or a sub-agent, asks for Auth Tokens (DESIGN 3.1, 3.3); blob deletion is an administrator's (spec 5.4–5.5).
 */
export class AccessDeniedProblem extends ProblemError {
  constructor(detail: string) {
    super(403, 'access_denied', detail);
  }
}

/**
 * The base protocol's `mission_terminated` (DESIGN 3.1: 403 with `mission_status: "terminated"` and
 * `termination_reason`): another PS operation under a terminated mission (spec 3 rule 3, spec 7).
 */
export class MissionTerminatedProblem extends ProblemError {
  constructor(readonly terminationReason: string) {
    super(403, 'mission_terminated', 'the mission is terminated', {
      members: { mission_status: 'terminated', termination_reason: terminationReason },
    });
  }
}

/**
 * Spec 7 `mission_not_found` (404): the mission is absent OR the caller may not know it exists. Spec 5.9
 * (anti-oracle): both cases must be byte-identical, so the detail is fixed and takes no argument.
 */
export class MissionNotFoundProblem extends ProblemError {
  constructor() {
    super(404, 'mission_not_found', 'mission not found');
  }
}

/**
 * DESIGN 3.1 proposal endpoints: `404 not_found` for a pending id that is unknown, or that the caller
 * may not see (not the proposing agent; not a person owning its agent). One fixed body for all.
 */
export class NotFoundProblem extends ProblemError {
  constructor() {
    super(404, 'not_found', 'pending mission proposal not found');
  }
}

/** Spec 7 `idempotency_conflict` (409): `request_id` reused by the same caller with different content (spec 4.2 rule 2). */
export class IdempotencyConflictProblem extends ProblemError {
  constructor(detail = 'request_id was already used with different content', options?: ProblemOptions) {
    super(409, 'idempotency_conflict', detail, options);
  }
}

/**
 * `409 mission_active` (spec 3 rule 5): only a terminated mission's body can be deleted. The caller is an
 * administrator of the mission's tenant (authorization already succeeded), so the state is not an oracle.
 */
export class MissionActiveProblem extends ProblemError {
  constructor() {
    super(409, 'mission_active', 'the mission is active; terminate it before deleting its body');
  }
}

/** Spec 7 `rate_limited` (429) with `Retry-After` (RFC 9110 §10.2.3, whole seconds ≥ 1): the caller exceeded a PS policy limit (spec 5.5, 8). */
export class RateLimitedProblem extends ProblemError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, 'rate_limited', 'too many requests; retry later', { headers: { 'Retry-After': String(seconds) } });
    this.retryAfterSeconds = seconds;
  }
}

/**
 * `503 temporarily_unavailable` with `Retry-After`: the PS cannot safely decide right now (e.g. its replay
 * cache is full of live entries, so it fails closed). Not a spec 7 code; never used for a caller's fault.
 */
export class TemporarilyUnavailableProblem extends ProblemError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(503, 'temporarily_unavailable', detail, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}
