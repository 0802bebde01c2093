import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 1: there is exactly one DPoP header (every token we issue is DPoP-bound, so none at all is refused too).
export function singleDpopHeader(context: DpopProofContext): void {
  const { dpop } = context.request;
  const values = dpop === undefined ? [] : typeof dpop === 'string' ? [dpop] : dpop;
  if (values.length === 0 || values[0] === '') throw new InvalidDpopProofError('DPoP proof is required');
  if (values.length > 1 || values[0]!.includes(',')) throw new InvalidDpopProofError('exactly one DPoP header is allowed');
  context.proof = values[0]!;
}
