import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 3, narrowed by draft-ietf-oauth-rfc7523bis §3: aud is the issuer identifier as sole value (no token endpoint URL).
export function audience({ claims, deps }: ClientAuthenticationContext): void {
  const { aud } = claims!;
  const sole = Array.isArray(aud) && aud.length === 1 ? aud[0] : aud;
  if (sole !== deps.issuer) throw new InvalidClientError('client_assertion aud must be the issuer identifier');
}
