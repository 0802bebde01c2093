import { isMissionS256 } from '../blob/mission-s256.js';
import { InvalidRequestError, InvalidTerminationReasonError } from '../errors/management.errors.js';
import { isBoundedText, isVisibleAscii } from '../shared/text.js';
import type { ManagementRole } from './management-caller.js';

/** Spec 2.4: termination reasons — audit facts, never states. */
export const TERMINATION_REASONS = ['completed', 'revoked', 'expired', 'superseded', 'administrative'] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

export function isTerminationReason(value: unknown): value is TerminationReason {
  return typeof value === 'string' && (TERMINATION_REASONS as readonly string[]).includes(value);
}

/**
 * Spec 5.4 with spec 2.4: the reasons each role may request at the `terminate` operation.
 * - Owning Agent: `revoked` only (its completion needs Person acceptance; it can only withdraw its own mission).
 * - Person: `completed` (accepting completion), `revoked`, `superseded`.
 * - Administrator: `administrative`, `revoked`, and `superseded` (spec 2.4: "the Person or an authorized
 *   administrator replaced it").
 * `expired` is recorded only by the PS scheduler; no caller may request it.
 */
export const PERMITTED_TERMINATION_REASONS: Readonly<Record<ManagementRole, readonly TerminationReason[]>> = {
  agent: ['revoked'],
  person: ['completed', 'revoked', 'superseded'],
  admin: ['administrative', 'revoked', 'superseded'],
};

export function isPermittedTerminationReason(role: ManagementRole, reason: unknown): reason is TerminationReason {
  return isTerminationReason(reason) && PERMITTED_TERMINATION_REASONS[role].includes(reason);
}

/** Spec 4.2 / 8: `request_id` carries ≥ 128 bits: at least 22 characters (22 base64url characters = 132 bits). */
export const REQUEST_ID_LIMITS = { minLength: 22, maxLength: 256 } as const;
export const MAX_PURPOSE_LENGTH = 1000;

/** 22–256 visible ASCII characters (%x21-7E), compared exactly. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= REQUEST_ID_LIMITS.minLength && value.length <= REQUEST_ID_LIMITS.maxLength && isVisibleAscii(value);
}

/** Spec 4.2: `request_id` is REQUIRED with ≥ 128 bits; anything else is `invalid_request`. */
export function assertRequestId(value: unknown): asserts value is string {
  if (!isRequestId(value)) {
    throw new InvalidRequestError(`request_id must be ${REQUEST_ID_LIMITS.minLength} to ${REQUEST_ID_LIMITS.maxLength} visible ASCII characters (at least 128 bits)`);
  }
}

/** Spec 4.2: `purpose` is an audit string: non-blank bounded text without control characters. */
export function isPurpose(value: unknown): value is string {
  return isBoundedText(value, MAX_PURPOSE_LENGTH) && value.trim().length > 0;
}

/**
 * The members of a `terminate` request the rules look at (spec 4.2), as the application read them
 * from the body (values are checked here, so raw values are fine).
 */
export interface TerminationRequest {
  readonly reason: string;
  readonly requestId: string;
  readonly purpose?: string;
  readonly replacementS256?: string;
  /**
   * The application's finding for `replacementS256` (spec 4.2 rule 1): it resolves to a mission this
   * PS approved that the caller may reference. Read only when the reason is `superseded`.
   */
  readonly replacementResolves?: boolean;
}

/**
 * Spec 4.2 checks that need no mission (they may run before lookup and disclose nothing, spec 5.9):
 * `request_id` and `purpose` syntax and `reason` presence (`invalid_request`), `reason` known
 * (`invalid_termination_reason`; extension reasons are not supported).
 */
export function checkTerminationRequestSyntax(request: TerminationRequest): TerminationReason {
  assertRequestId(request.requestId);
  if (typeof request.reason !== 'string') throw new InvalidRequestError('reason is required and must be a string');
  if (request.purpose !== undefined && !isPurpose(request.purpose)) {
    throw new InvalidRequestError(`purpose must be non-blank text of at most ${MAX_PURPOSE_LENGTH} characters without control characters`);
  }
  if (!isTerminationReason(request.reason)) throw new InvalidTerminationReasonError();
  return request.reason;
}

/**
 * Spec 5.4 and spec 4.2 rules 1 and 4 — the role rules as a pure function, applied after the caller
 * was authorized for the mission `missionS256`: the reason must be permitted for the role
 * (`invalid_termination_reason`); an administrator must give a `purpose` (`invalid_request`, a
 * required member); `superseded` needs a `replacementS256` (`invalid_request` when absent) that is a
 * digest, resolves (the application's finding) and is not the mission itself — every failure of it is
 * the same `invalid_request`, disclosing nothing about the referenced mission.
 *
 * @returns the reason, and the replacement when the reason is `superseded` (otherwise it is ignored)
 */
export function checkTerminationRules(
  role: ManagementRole,
  request: TerminationRequest,
  missionS256: string,
): { readonly reason: TerminationReason; readonly replacementS256?: string } {
  const reason = checkTerminationRequestSyntax(request);
  if (!isPermittedTerminationReason(role, reason)) throw new InvalidTerminationReasonError();
  if (role === 'admin' && request.purpose === undefined) throw new InvalidRequestError('purpose is required for an administrator');
  if (reason !== 'superseded') return { reason };
  if (request.replacementS256 === undefined) throw new InvalidRequestError('replacement_s256 is required when reason is superseded');
  if (!isMissionS256(request.replacementS256) || request.replacementResolves !== true || request.replacementS256 === missionS256) {
    throw new InvalidRequestError('replacement_s256 does not identify a mission that can replace this one');
  }
  return { reason, replacementS256: request.replacementS256 };
}
