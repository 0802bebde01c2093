import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 11 / §11.1: iat is within the acceptance window around now (default ±60 s).
export function iatWindow({ claims, now, iatWindow: window }: DpopProofContext): void {
  const iat = claims!.iat!;
  if (iat > now + window) throw new InvalidDpopProofError('DPoP proof iat is in the future');
  if (iat < now - window) throw new InvalidDpopProofError('DPoP proof is too old');
}
