import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 4: the typ JOSE header is dpop+jwt.
export function typHeader({ header }: DpopProofContext): void {
  if (header!.typ !== 'dpop+jwt') throw new InvalidDpopProofError('DPoP proof typ must be dpop+jwt');
}
