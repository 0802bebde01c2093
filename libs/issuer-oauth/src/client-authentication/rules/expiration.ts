import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 4: exp has not passed (within clock skew) and, by local policy, is at most maxAssertionLifetimeSeconds ahead.
export function expiration({ claims, now, tolerance, maxLifetime }: ClientAuthenticationContext): void {
  const exp = claims!.exp!;
  if (exp <= now - tolerance) throw new InvalidClientError('client_assertion has expired');
  if (exp > now + maxLifetime + tolerance) throw new InvalidClientError(`client_assertion exp must be at most ${maxLifetime} seconds ahead`);
}
