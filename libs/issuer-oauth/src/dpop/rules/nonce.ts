import { UseDpopNonceError } from '../../errors/use-dpop-nonce.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 10 / §8: when the server requires nonces, the proof carries a current one; otherwise use_dpop_nonce with a fresh DPoP-Nonce.
export function nonce({ claims, deps }: DpopProofContext): void {
  if (!deps.nonces) return;
  const value = claims!['nonce'];
  if (value === undefined) throw new UseDpopNonceError(deps.nonces.issue(), undefined, { resourceServer: deps.resourceServer });
  if (!deps.nonces.verify(value)) throw new UseDpopNonceError(deps.nonces.issue(), 'DPoP proof nonce is stale or unknown', { resourceServer: deps.resourceServer });
}
