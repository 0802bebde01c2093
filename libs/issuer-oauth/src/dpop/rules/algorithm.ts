import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 5: alg is an asymmetric algorithm we accept (never none, never a MAC).
export function algorithm({ header, algorithms }: DpopProofContext): void {
  if (!(algorithms as readonly unknown[]).includes(header!.alg)) {
    throw new InvalidDpopProofError(`DPoP proof alg must be one of ${algorithms.join(', ')}`, { algs: algorithms });
  }
}
