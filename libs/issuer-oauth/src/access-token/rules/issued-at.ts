import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §2.2 / RFC 7519 §4.1.6: iat is not in the future (a token from the future was not minted by this clock).
export function issuedAt({ claims, now, tolerance }: AccessTokenContext): void {
  if (claims!.iat! > now + tolerance) throw new InvalidTokenError('the access token is not yet valid');
}
