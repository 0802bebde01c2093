import { importedPublicKey } from '@mission/http-signatures';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { verifyCompactJws } from '../../pipeline/jws-signature.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 6: the signature verifies with the public key of the jwk header; its RFC 7638 thumbprint is the proof's jkt.
// A client reuses one DPoP key for thousands of requests: key and thumbprint come from the shared cache (ADR 0062).
export function signature(context: DpopProofContext): void {
  const imported = importedPublicKey(context.publicJwk!);
  if (imported === null || !verifyCompactJws(context.proof!, imported.key, context.algorithms, context.header)) throw new InvalidDpopProofError('DPoP proof signature is invalid');
  context.jkt = imported.thumbprint;
}
