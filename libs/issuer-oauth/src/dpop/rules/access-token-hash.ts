import { createHash } from 'node:crypto';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

/** RFC 9449 §4.2 `ath`: base64url of the SHA-256 of the ASCII access token. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

// RFC 9449 §4.3 step 12 / §4.2: with a token presented, ath is base64url(SHA-256(token)).
export function athMatchesToken({ claims, request }: DpopProofContext): void {
  if (request.accessToken === undefined) return;
  if (claims!['ath'] !== accessTokenHash(request.accessToken)) throw new InvalidDpopProofError('DPoP proof ath does not match the presented token');
}
