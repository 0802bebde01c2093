import { calculateJwkThumbprint, type JWK } from 'jose';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { BoundedCache } from '../../pipeline/bounded-cache.js';
import { publicKeyOf, verifyCompactJws } from '../../pipeline/jws-signature.js';
import type { DpopProofContext } from '../context.js';

/** A client reuses one DPoP key for thousands of requests: take its RFC 7638 thumbprint once (bounded). */
const thumbprints = new BoundedCache<Promise<string>>(10_000);

function thumbprintOf(jwk: JWK): Promise<string> {
  // publicJwk holds exactly the key type's required members in a fixed order (public-jwk.ts), so equal keys give equal text.
  const cacheKey = JSON.stringify(jwk);
  let jkt = thumbprints.get(cacheKey);
  if (jkt === undefined) thumbprints.set(cacheKey, (jkt = calculateJwkThumbprint(jwk, 'sha256')));
  return jkt;
}

// RFC 9449 §4.3 step 6: the signature verifies with the public key of the jwk header; its RFC 7638 thumbprint is the proof's jkt.
export async function signature(context: DpopProofContext): Promise<void> {
  const key = publicKeyOf(context.publicJwk!);
  if (key === null || !verifyCompactJws(context.proof!, key, context.algorithms)) throw new InvalidDpopProofError('DPoP proof signature is invalid');
  context.jkt = await thumbprintOf(context.publicJwk!);
}
