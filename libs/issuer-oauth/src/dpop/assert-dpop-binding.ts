import { InvalidDpopProofError } from '../errors/invalid-dpop-proof.error.js';
import { InvalidGrantError } from '../errors/invalid-grant.error.js';
import { InvalidTokenError } from '../errors/invalid-token.error.js';

/**
 * What the proof key must match:
 * - `dpop_jkt`: the `dpop_jkt` parameter of the same PAR request (RFC 9449 §10.1) → invalid_dpop_proof;
 * - `authorization_code`: the `dpop_jkt` the code was bound to at PAR (RFC 9449 §10) → invalid_grant;
 * - `refresh_token`: the key a refresh token (or a `parent_token`, DESIGN 2.4) is bound to (RFC 9449 §5) → invalid_grant;
 * - `access_token`: the token's `cnf.jkt` at a protected resource (RFC 9449 §4.3 step 12, §7) → invalid_token.
 */
export type DpopBinding = 'dpop_jkt' | 'authorization_code' | 'refresh_token' | 'parent_token' | 'access_token';

// RFC 9449 §5, §7, §10, §10.1: the proof's key thumbprint equals the thumbprint the request or grant is bound to.
export function assertDpopBinding(proof: { readonly jkt: string }, expectedJkt: string, binding: DpopBinding): void {
  if (proof.jkt === expectedJkt) return;
  switch (binding) {
    case 'dpop_jkt':
      throw new InvalidDpopProofError('DPoP proof key does not match dpop_jkt');
    case 'authorization_code':
      throw new InvalidGrantError('the authorization code is bound to another DPoP key');
    case 'refresh_token':
      throw new InvalidGrantError('the grant is bound to another DPoP key');
    // DESIGN 2.2: the parent grant at /par comes with a proof of the key it is bound to.
    case 'parent_token':
      throw new InvalidGrantError('parent_token is bound to another DPoP key');
    case 'access_token':
      throw new InvalidTokenError('the access token is bound to another DPoP key');
  }
}
