import { calculateJwkThumbprint, type JWK } from 'jose';
import type { KeyObject } from 'node:crypto';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { publicKeyOf, verifyCompactJws } from '../../pipeline/jws-signature.js';
import type { DpopProofContext } from '../context.js';

/**
 * A client reuses one DPoP key for thousands of requests: its RFC 7638 thumbprint is taken once per imported
 * key. Keyed by the KeyObject that publicKeyOf caches (bounded there), so this needs no bound or key text of its own.
 */
const thumbprints = new WeakMap<KeyObject, Promise<string>>();

function thumbprintOf(key: KeyObject, jwk: JWK): Promise<string> {
  let jkt = thumbprints.get(key);
  if (jkt === undefined) thumbprints.set(key, (jkt = calculateJwkThumbprint(jwk, 'sha256')));
  return jkt;
}

// RFC 9449 §4.3 step 6: the signature verifies with the public key of the jwk header; its RFC 7638 thumbprint is the proof's jkt.
export async function signature(context: DpopProofContext): Promise<void> {
  const key = publicKeyOf(context.publicJwk!);
  if (key === null || !verifyCompactJws(context.proof!, key, context.algorithms)) throw new InvalidDpopProofError('DPoP proof signature is invalid');
  context.jkt = await thumbprintOf(key, context.publicJwk!);
}
