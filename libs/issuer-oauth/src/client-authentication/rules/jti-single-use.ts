import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7523 §3 item 7 (single use required by DESIGN 2.2): the jti was never used before by this client; recorded last, after every other check passed.
// The record protects until the first second `expiration` refuses the assertion on its own (exp <= now - tolerance:
// from exp + tolerance), not just until exp; the sweep of expired records relies on it (ADR 0057).
export async function jtiSingleUse({ claims, deps, tolerance }: ClientAuthenticationContext): Promise<void> {
  const { sub, jti, exp } = claims!;
  const first = await deps.jtis.use({
    kind: 'client_assertion',
    scope: sub!,
    jti: jti!,
    expiresAt: new Date((exp! + tolerance) * 1000),
    data: { client_id: sub!, exp: exp! },
  });
  if (!first) throw new InvalidClientError('client_assertion was already used');
}
