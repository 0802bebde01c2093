import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

/** `typ` values of JWTs made for a client assertion; any other explicit type was minted for something else. */
const ASSERTION_TYPES = new Set(['JWT', 'client-authentication+jwt']);

// RFC 8725 §3.11: an explicitly typed JWT of another kind (dpop+jwt, at+jwt, …) is never accepted as a client assertion.
export function assertionTypHeader({ header }: ClientAuthenticationContext): void {
  if (header!.typ !== undefined && !ASSERTION_TYPES.has(header!.typ)) throw new InvalidClientError('client_assertion has the wrong typ');
}
