import { calculateJwkThumbprint, compactVerify, importJWK, type CryptoKey, type JWK } from 'jose';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { BoundedCache } from '../../pipeline/bounded-cache.js';
import type { DpopProofContext } from '../context.js';

/** A client reuses one DPoP key for thousands of requests: import it and take its thumbprint once (bounded). */
const importedKeys = new BoundedCache<Promise<{ readonly key: CryptoKey | Uint8Array; readonly jkt: string }>>(10_000);

function imported(jwk: JWK, alg: string): Promise<{ readonly key: CryptoKey | Uint8Array; readonly jkt: string }> {
  // publicJwk holds exactly the key type's required members in a fixed order (public-jwk.ts), so equal keys give equal text.
  const cacheKey = `${alg} ${JSON.stringify(jwk)}`;
  let entry = importedKeys.get(cacheKey);
  if (entry === undefined) {
    entry = Promise.all([importJWK(jwk, alg), calculateJwkThumbprint(jwk, 'sha256')]).then(([key, jkt]) => ({ key, jkt }));
    // A key that cannot be imported fails the same way every time; the rejection is remembered like a success
    // (and marked handled here, since a cached promise may have no awaiting caller).
    entry.catch(() => undefined);
    importedKeys.set(cacheKey, entry);
  }
  return entry;
}

// RFC 9449 §4.3 step 6: the signature verifies with the public key of the jwk header; its RFC 7638 thumbprint is the proof's jkt.
export async function signature(context: DpopProofContext): Promise<void> {
  const { alg } = context.header!;
  let jkt: string;
  try {
    const key = await imported(context.publicJwk!, alg!);
    await compactVerify(context.proof!, key.key, { algorithms: [...context.algorithms] });
    jkt = key.jkt;
  } catch {
    throw new InvalidDpopProofError('DPoP proof signature is invalid');
  }
  context.jkt = jkt;
}
