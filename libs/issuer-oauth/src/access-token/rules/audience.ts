import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4: a resource server accepts only tokens whose aud names it (skipped for introspection, which answers for every audience).
export function audience({ claims, options }: AccessTokenContext): void {
  if (options.audience === undefined) return;
  const audiences = Array.isArray(claims!.aud) ? claims!.aud : [claims!.aud];
  if (!audiences.includes(options.audience)) throw new InvalidTokenError('the access token is not for this audience');
}
