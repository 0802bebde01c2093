import { decodeJwt, decodeProtectedHeader } from 'jose';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { isCompactJws } from '../../pipeline/compact-jwt.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 2: the DPoP header value is a single, well-formed JWT (JWS compact serialization, JSON header and claims).
export function wellFormedJwt(context: DpopProofContext): void {
  if (!isCompactJws(context.proof)) throw new InvalidDpopProofError('DPoP proof is not a well-formed JWT');
  try {
    context.header = decodeProtectedHeader(context.proof);
    context.claims = decodeJwt(context.proof);
  } catch {
    throw new InvalidDpopProofError('DPoP proof is not a well-formed JWT');
  }
}
