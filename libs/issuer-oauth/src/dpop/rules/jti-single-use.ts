import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §11.1 (and §4.3 "jti" of §4.2): a proof's jti is accepted once per key within the acceptance window; recorded last.
// The record protects until the first second iatWindow refuses the proof on its own (iat < now - window with
// now in whole seconds: from iat + window + 1); the sweep of expired records relies on it (ADR 0057).
export async function jtiSingleUse({ claims, jkt, deps, iatWindow: window }: DpopProofContext): Promise<void> {
  const { jti, iat, htm, htu } = claims! as { jti: string; iat: number; htm: string; htu: string };
  const first = await deps.jtis.use({ kind: 'dpop_proof', scope: jkt!, jti, expiresAt: new Date((iat + window + 1) * 1000), data: { jkt: jkt!, htm, htu, iat } });
  if (!first) throw new InvalidDpopProofError('DPoP proof was already used');
}
