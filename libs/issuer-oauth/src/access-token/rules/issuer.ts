import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4: iss exactly matches the issuer identifier.
export function issuer({ claims, options }: AccessTokenContext): void {
  if (claims!.iss !== options.issuer) throw new InvalidTokenError('the access token was not issued here');
}
