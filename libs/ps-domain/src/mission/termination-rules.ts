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

/**
 * Spec 4.2 / 8: `request_id` is a string with at least 128 bits of entropy. The PS cannot see how a
 * value was generated, so it estimates an upper bound from the characters actually used (ADR 0013):
 * 22–256 visible ASCII characters; at least 5 distinct characters; and, counting only the shortest
 * repeating unit, ≥ 128 bits at the bits per character of the narrowest alphabet that holds the value —
 * decimal 3.32 (≥ 39 digits), hexadecimal 4 (≥ 32 digits; a UUID counts 122 bits and is refused),
 * base64url/base64 6 (≥ 22 characters), other visible ASCII 6.55. A refusal is certain to be too little
 * entropy; an acceptance is no proof of randomness.
 */
export const REQUEST_ID_LIMITS = { minLength: 22, maxLength: 256, minBits: 128, minDistinctCharacters: 5 } as const;
export const MAX_PURPOSE_LENGTH = 1000;

/** Random bits of a UUID: 122 for version 4, fewer for the other versions (RFC 9562). */
const UUID_BITS = 122;
const DECIMAL_BITS_PER_DIGIT = Math.log2(10);
const VISIBLE_ASCII_BITS_PER_CHARACTER = Math.log2(94);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Leading lower-case labels such as `rq-`, `req_` or `urn:uuid:`, which carry no entropy of their own.
 * Lower case only: random base64url rarely starts with lower-case words and separators, so a random id is
 * almost never cut down (about 1 in 10⁹ for 22 characters, ADR 0013).
 */
const LABELS = /^(?:[a-z]{1,16}[-_:.])+/;

/** Spec 4.2: `request_id` is a string of 22–256 visible ASCII characters (%x21-7E), compared exactly. */
export function isRequestIdText(value: unknown): value is string {
  return typeof value === 'string' && value.length >= REQUEST_ID_LIMITS.minLength && value.length <= REQUEST_ID_LIMITS.maxLength && isVisibleAscii(value);
}

/** Spec 4.2, 8: a value of fewer than 5 distinct characters (e.g. one character repeated) is degenerate, whatever its length. */
export function hasRequestIdVariety(value: string): boolean {
  return new Set(value).size >= REQUEST_ID_LIMITS.minDistinctCharacters;
}

/**
 * Spec 4.2, 8: an upper bound of the entropy of `request_id` in bits (see {@link REQUEST_ID_LIMITS}):
 * a repeated unit adds nothing, so only the shortest repeating unit counts; grouped or labelled
 * decimal/hex digits count by their digits; otherwise the characters count at the bits of the
 * narrowest alphabet (base64url or base64 without padding, else visible ASCII).
 */
export function requestIdEntropyBits(value: string): number {
  const unit = shortestRepeatingUnit(value);
  return digitBits(unit) ?? digitBits(withoutLabels(unit)) ?? alphabetBits(unit);
}

/** Spec 4.2, 8: a `request_id` with at least 128 bits by the estimate of {@link requestIdEntropyBits}. */
export function hasRequestIdEntropy(value: string): boolean {
  return requestIdEntropyBits(value) >= REQUEST_ID_LIMITS.minBits;
}

/** Spec 4.2, 8: a usable `request_id` — text, variety and entropy rules all hold. */
export function isRequestId(value: unknown): value is string {
  return isRequestIdText(value) && hasRequestIdVariety(value) && hasRequestIdEntropy(value);
}

/** Spec 4.2: `request_id` is REQUIRED with ≥ 128 bits; anything else is `invalid_request`, saying which rule failed. */
export function assertRequestId(value: unknown): asserts value is string {
  if (!isRequestIdText(value)) {
    throw new InvalidRequestError(`request_id must be ${REQUEST_ID_LIMITS.minLength} to ${REQUEST_ID_LIMITS.maxLength} visible ASCII characters (at least 128 bits)`);
  }
  if (!hasRequestIdVariety(value) || !hasRequestIdEntropy(value)) {
    throw new InvalidRequestError(
      'request_id must carry at least 128 bits of entropy: for example 16 random bytes as 22 base64url or 32 hex characters (a UUID carries at most 122 bits; a repeated pattern counts once)',
    );
  }
}

/** The shortest prefix that repeated (the last copy possibly cut short) makes up `value` (KMP failure function). */
function shortestRepeatingUnit(value: string): string {
  const border = new Array<number>(value.length).fill(0);
  for (let index = 1, length = 0; index < value.length; index++) {
    while (length > 0 && value[index] !== value[length]) length = border[length - 1]!;
    if (value[index] === value[length]) length++;
    border[index] = length;
  }
  const period = value.length - (border[value.length - 1] ?? 0);
  // A unit that does not occur at least twice in full is no repetition (e.g. "abcab"): count everything.
  return period * 2 <= value.length ? value.slice(0, period) : value;
}

/** Bits of decimal or hexadecimal digits (`-` grouping ignored; a UUID at most 122), or undefined for other text. */
function digitBits(text: string): number | undefined {
  const digits = text.replaceAll('-', '');
  if (/^[0-9]+$/.test(digits)) return digits.length * DECIMAL_BITS_PER_DIGIT;
  if (/^[0-9A-Fa-f]+$/.test(digits)) return UUID.test(text) ? Math.min(UUID_BITS, digits.length * 4) : digits.length * 4;
  return undefined;
}

/** `text` without leading labels and one pair of surrounding braces (`{…}`). */
function withoutLabels(text: string): string {
  const unlabelled = text.replace(LABELS, '');
  return unlabelled.startsWith('{') && unlabelled.endsWith('}') ? unlabelled.slice(1, -1) : unlabelled;
}

/** Bits of `text` at the narrowest alphabet holding it: base64url or base64 (padding carries nothing) 6, else visible ASCII. */
function alphabetBits(text: string): number {
  const unpadded = text.replace(/=+$/, '');
  if (/^[A-Za-z0-9_-]+$/.test(unpadded) || /^[A-Za-z0-9+/]+$/.test(unpadded)) return unpadded.length * 6;
  return text.length * VISIBLE_ASCII_BITS_PER_CHARACTER;
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
 * Spec 5.4 and spec 4.2 rule 4 — the role rules as a pure function, applied once the caller was
 * authorized for the mission and **before** anything else is looked up (spec 4.2 rule 1: a replacement is
 * only resolved for a caller whose role may supersede): the reason must be permitted for the role
 * (`invalid_termination_reason`); an administrator must give a `purpose` (`invalid_request`, a required
 * member).
 */
export function checkTerminationRole(role: ManagementRole, request: TerminationRequest): TerminationReason {
  const reason = checkTerminationRequestSyntax(request);
  if (!isPermittedTerminationReason(role, reason)) throw new InvalidTerminationReasonError();
  if (role === 'admin' && request.purpose === undefined) throw new InvalidRequestError('purpose is required for an administrator');
  return reason;
}

/**
 * Spec 4.2 rule 1: `superseded` needs a `replacementS256` (`invalid_request` when absent) that is a
 * digest, resolves (the application's finding) and is not the mission itself — every failure of it is
 * the same `invalid_request`, disclosing nothing about the referenced mission.
 */
export function checkReplacement(request: TerminationRequest, missionS256: string): string {
  if (request.replacementS256 === undefined) throw new InvalidRequestError('replacement_s256 is required when reason is superseded');
  if (!isMissionS256(request.replacementS256) || request.replacementResolves !== true || request.replacementS256 === missionS256) {
    throw new InvalidRequestError(REPLACEMENT_REFUSAL);
  }
  return request.replacementS256;
}

/** Spec 4.2 rule 1: the one message of every unusable replacement (no condition is disclosed). */
export const REPLACEMENT_REFUSAL = 'replacement_s256 does not identify a mission that can replace this one';

/**
 * Spec 5.4 and spec 4.2 rules 1 and 4: {@link checkTerminationRole}, then for `superseded`
 * {@link checkReplacement}.
 *
 * @returns the reason, and the replacement when the reason is `superseded` (otherwise it is ignored)
 */
export function checkTerminationRules(
  role: ManagementRole,
  request: TerminationRequest,
  missionS256: string,
): { readonly reason: TerminationReason; readonly replacementS256?: string } {
  const reason = checkTerminationRole(role, request);
  if (reason !== 'superseded') return { reason };
  return { reason, replacementS256: checkReplacement(request, missionS256) };
}
