import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 items 1–2: for client authentication iss and sub both are the client_id of the client.
export function issuerIsSubject({ claims }: ClientAuthenticationContext): void {
  if (claims!.iss !== claims!.sub) throw new InvalidClientError('client_assertion iss and sub must both be the client_id');
}
