import { InvalidCommandError } from '../errors/ps-domain.error.js';
import type { Actor } from '../shared/actor.js';
import { canonicalJson, isJsonValue, type JsonObject } from '../shared/json.js';
import { isSha256Base64url, sha256Base64url } from '../shared/sha256.js';
import { isBoundedText } from '../shared/text.js';

/** DESIGN 1: idempotency records live on `psidem-<digest>`. */
export const IDEMPOTENCY_STREAM_CATEGORY = 'psidem';
/** Domain separation of the key digest from every other JCS digest. */
export const IDEMPOTENCY_KEY_TYP = 'ps-idempotency-key';

/** The authenticated caller a `request_id` is bound to (spec 5.6): its principal id and kind (`agent`, `person`, `admin`). */
export type IdempotencyCaller = Pick<Actor, 'id' | 'role'>;

function assertCaller(caller: IdempotencyCaller): void {
  if (typeof caller !== 'object' || caller === null || !isBoundedText(caller.id, 2048) || !isBoundedText(caller.role, 64)) {
    throw new InvalidCommandError('caller must be {id, role} with non-empty strings');
  }
}

/**
 * Spec 4.2 rule 2: the key of (authenticated caller, `request_id`) —
 * base64url-nopad(SHA-256(JCS({"typ":"ps-idempotency-key","caller":{"id","role"},"request_id"}))).
 * The caller's kind is part of the key so an agent id and a principal id that happen to be equal
 * never share records.
 */
export function idempotencyKey(caller: IdempotencyCaller, requestId: string): string {
  assertCaller(caller);
  if (typeof requestId !== 'string' || requestId.length === 0) throw new InvalidCommandError('requestId must be a non-empty string');
  return sha256Base64url(canonicalJson({ typ: IDEMPOTENCY_KEY_TYP, caller: { id: caller.id, role: caller.role }, request_id: requestId }));
}

export function idempotencyStreamName(caller: IdempotencyCaller, requestId: string): string {
  return `${IDEMPOTENCY_STREAM_CATEGORY}-${idempotencyKey(caller, requestId)}`;
}

/** A value `requestContentDigest` can produce. */
export function isContentDigest(value: unknown): value is string {
  return isSha256Base64url(value);
}

/**
 * Spec 5.6 ("binds request_id to the authenticated caller and exact content"): base64url-nopad(SHA-256(
 * JCS(members))) of the request members that matter — member order and whitespace of the body do
 * not change it; any changed value does. Absent (`undefined`) members are left out.
 */
export function requestContentDigest(members: JsonObject): string {
  if (!isJsonValue(members) || typeof members !== 'object' || members === null || Array.isArray(members)) {
    throw new InvalidCommandError('request members must be a plain JSON object');
  }
  return sha256Base64url(canonicalJson(members));
}

/** The members of a `terminate` request (spec 4.2) as received; unknown members are ignored (spec 4). */
export interface TerminateRequestBody {
  readonly mission_s256: unknown;
  readonly reason: unknown;
  readonly request_id: unknown;
  readonly purpose?: unknown;
  readonly replacement_s256?: unknown;
}

/** The content a terminate's `request_id` is bound to: `operation` plus every spec 4.2 member present. */
export function terminateRequestContent(body: TerminateRequestBody): JsonObject {
  const content: Record<string, unknown> = {
    operation: 'terminate',
    mission_s256: body.mission_s256,
    reason: body.reason,
    request_id: body.request_id,
    purpose: body.purpose,
    replacement_s256: body.replacement_s256,
  };
  if (!isJsonValue(content)) throw new InvalidCommandError('terminate request members must be JSON values');
  return content as JsonObject;
}
