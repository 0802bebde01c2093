import { decodeJwt, decodeProtectedHeader } from 'jose';
import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { isCompactJws } from '../../pipeline/compact-jwt.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4 / RFC 7519 §7.2: the token is a JWS-signed JWT in compact serialization.
export function wellFormedJwt(context: AccessTokenContext): void {
  if (!isCompactJws(context.token)) throw new InvalidTokenError('the access token is not a JWT');
  try {
    context.header = decodeProtectedHeader(context.token);
    context.claims = decodeJwt(context.token);
  } catch {
    throw new InvalidTokenError('the access token is not a JWT');
  }
}
