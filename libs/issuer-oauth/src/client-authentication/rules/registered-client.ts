import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

/** Same words for "unknown client" and "bad signature": the answer must not tell which client_ids exist. */
export const ASSERTION_NOT_VERIFIED = 'client_assertion could not be verified';

// RFC 7523 §3 item 9 / RFC 6749 §2.3: the client named by sub is registered (its keys verify the assertion).
export async function registeredClient(context: ClientAuthenticationContext): Promise<void> {
  const client = await context.deps.clients.findClient(context.claims!.sub!);
  if (!client || client.client_id !== context.claims!.sub) throw new InvalidClientError(ASSERTION_NOT_VERIFIED);
  context.client = client;
}
