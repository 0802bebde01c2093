import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 8: htm is the HTTP method of this request (methods are case-sensitive, RFC 9110 §9.1).
export function htm({ claims, request }: DpopProofContext): void {
  if (claims!['htm'] !== request.method) throw new InvalidDpopProofError('DPoP proof htm does not match the request method');
}
