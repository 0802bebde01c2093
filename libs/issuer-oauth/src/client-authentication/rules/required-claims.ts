import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { isNonEmptyString, isNumericDate } from '../../pipeline/compact-jwt.js';
import type { ClientAuthenticationContext } from '../context.js';

/** Longest `jti` stored: a UUID is 36 characters; anything longer than this is not an identifier. */
export const MAX_JTI_LENGTH = 256;

// RFC 7523 §3 items 1–4 and 7 (jti required by DESIGN 2.2): iss, sub, aud, exp and jti are present and well-typed.
export function requiredClaims({ claims }: ClientAuthenticationContext): void {
  const { iss, sub, aud, exp, jti, nbf, iat } = claims!;
  if (!isNonEmptyString(iss)) throw new InvalidClientError('client_assertion must contain iss');
  if (!isNonEmptyString(sub)) throw new InvalidClientError('client_assertion must contain sub');
  if (aud === undefined) throw new InvalidClientError('client_assertion must contain aud');
  if (!isNumericDate(exp)) throw new InvalidClientError('client_assertion must contain exp');
  if (!isNonEmptyString(jti) || jti.length > MAX_JTI_LENGTH) throw new InvalidClientError('client_assertion must contain jti');
  if (nbf !== undefined && !isNumericDate(nbf)) throw new InvalidClientError('client_assertion nbf must be a NumericDate');
  if (iat !== undefined && !isNumericDate(iat)) throw new InvalidClientError('client_assertion iat must be a NumericDate');
}
