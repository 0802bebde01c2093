import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4 / RFC 7519 §4.1.4: the current time is before exp.
export function expiration({ claims, now, tolerance }: AccessTokenContext): void {
  if (claims!.exp! <= now - tolerance) throw new InvalidTokenError('the access token has expired');
}
