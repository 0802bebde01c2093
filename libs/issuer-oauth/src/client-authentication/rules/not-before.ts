import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 5: an nbf claim, when present, is not in the future (within clock skew).
export function notBefore({ claims, now, tolerance }: ClientAuthenticationContext): void {
  const { nbf } = claims!;
  if (nbf !== undefined && nbf > now + tolerance) throw new InvalidClientError('client_assertion is not yet valid');
}
