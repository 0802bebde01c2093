import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';
import { normalizeHtu } from '../normalize-htu.js';

// RFC 9449 §4.3 step 9: htu is this request's URI without query and fragment, compared after RFC 3986 §6.2.2/§6.2.3 normalization.
export function htu({ claims, request }: DpopProofContext): void {
  const claimed = normalizeHtu(claims!['htu'] as string);
  const actual = normalizeHtu(request.url);
  if (actual === undefined) throw new TypeError(`request URL must be an absolute http(s) URL, got ${JSON.stringify(request.url)}`);
  if (claimed !== actual) throw new InvalidDpopProofError('DPoP proof htu does not match the request URI');
}
