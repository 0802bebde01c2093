import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 6: an iat claim, when present, is not in the future and not unreasonably far in the past (the lifetime bound).
export function issuedAt({ claims, now, tolerance, maxLifetime }: ClientAuthenticationContext): void {
  const { iat } = claims!;
  if (iat === undefined) return;
  if (iat > now + tolerance) throw new InvalidClientError('client_assertion iat is in the future');
  if (iat < now - maxLifetime - tolerance) throw new InvalidClientError('client_assertion is too old');
}
