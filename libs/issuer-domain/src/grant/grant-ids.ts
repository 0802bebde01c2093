import { InvalidCommandError } from '../shared/errors.js';
import { base64url, opaqueIdFromBytes, opaqueIdPattern } from '../shared/opaque-id.js';
import { sha256Base64url } from '../shared/sha256.js';

/**
 * Identifiers and opaque credentials of the OAuth artifacts (DESIGN 1 streams `par-<id>`, `grant-<id>`).
 *
 * **How a presented code or refresh token finds its grant stream.** Authorization codes and
 * refresh tokens are `<grant_id>.<secret>`: `grant_id` is `grt_` + 22 base64url characters (128
 * random bits) and `secret` is 32 random bytes in base64url (43 characters). The issuer reads the
 * grant id from the token to pick the stream `grant-<grant_id>`, then compares
 * base64url(SHA-256(whole token)) with the hash stored in that stream. Only that hash is ever stored
 * (DESIGN 2.3); the secret part alone carries the 256 bits that make the token unguessable, and a
 * token whose grant id was altered lands on a stream whose stored hash it cannot match. Knowing a
 * grant id without the secret achieves nothing: an unmatched hash never changes a grant.
 */
export const GRANT_ID_PREFIX = 'grt_';
export const REQUEST_ID_PREFIX = 'req_';
export const GRANT_STREAM_CATEGORY = 'grant';
export const PAR_STREAM_CATEGORY = 'par';
/** RFC 9126 §2.2 suggests this URN prefix for `request_uri`. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
export const GRANT_SECRET_BYTES = 32;

const GRANT_ID = opaqueIdPattern(GRANT_ID_PREFIX);
const REQUEST_ID = opaqueIdPattern(REQUEST_ID_PREFIX);
const GRANT_TOKEN = /^(grt_[A-Za-z0-9_-]{21}[AQgw])\.[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

export function grantIdFromBytes(bytes: Uint8Array): string {
  return opaqueIdFromBytes(GRANT_ID_PREFIX, bytes);
}

export function isGrantId(value: unknown): value is string {
  return typeof value === 'string' && GRANT_ID.test(value);
}

export function grantStreamName(grantId: string): string {
  if (!isGrantId(grantId)) throw new InvalidCommandError('grant id must be grt_ followed by 22 base64url characters');
  return `${GRANT_STREAM_CATEGORY}-${grantId}`;
}

/** An authorization code or refresh token of a grant: `<grant_id>.<base64url(32 random bytes)>`. */
export function grantTokenFromBytes(grantId: string, secret: Uint8Array): string {
  if (!isGrantId(grantId)) throw new InvalidCommandError('grant id must be grt_ followed by 22 base64url characters');
  if (!(secret instanceof Uint8Array) || secret.length !== GRANT_SECRET_BYTES) {
    throw new InvalidCommandError(`a grant token needs exactly ${GRANT_SECRET_BYTES} random bytes`);
  }
  return `${grantId}.${base64url(secret)}`;
}

/** The grant a presented code or refresh token belongs to, or `undefined` when it is not one of ours. */
export function grantIdOfToken(token: unknown): string | undefined {
  if (typeof token !== 'string' || token.length !== 26 + 1 + 43) return undefined;
  return GRANT_TOKEN.exec(token)?.[1];
}

/** What is stored for a code or refresh token: base64url(SHA-256(token)). */
export function grantTokenHash(token: string): string {
  return sha256Base64url(token);
}

export function requestIdFromBytes(bytes: Uint8Array): string {
  return opaqueIdFromBytes(REQUEST_ID_PREFIX, bytes);
}

export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && REQUEST_ID.test(value);
}

export function parStreamName(requestId: string): string {
  if (!isRequestId(requestId)) throw new InvalidCommandError('request id must be req_ followed by 22 base64url characters');
  return `${PAR_STREAM_CATEGORY}-${requestId}`;
}

export function requestUriFor(requestId: string): string {
  if (!isRequestId(requestId)) throw new InvalidCommandError('request id must be req_ followed by 22 base64url characters');
  return REQUEST_URI_PREFIX + requestId;
}

/** The request id inside a `request_uri` we issued, or `undefined`. */
export function requestIdFromUri(requestUri: unknown): string | undefined {
  if (typeof requestUri !== 'string' || !requestUri.startsWith(REQUEST_URI_PREFIX)) return undefined;
  const id = requestUri.slice(REQUEST_URI_PREFIX.length);
  return isRequestId(id) ? id : undefined;
}
