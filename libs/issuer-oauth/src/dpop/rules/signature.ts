import { calculateJwkThumbprint, compactVerify, importJWK } from 'jose';
import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import type { DpopProofContext } from '../context.js';

// RFC 9449 §4.3 step 6: the signature verifies with the public key of the jwk header; its RFC 7638 thumbprint is the proof's jkt.
export async function signature(context: DpopProofContext): Promise<void> {
  const { alg } = context.header!;
  try {
    const key = await importJWK(context.publicJwk!, alg);
    await compactVerify(context.proof!, key, { algorithms: [...context.algorithms] });
  } catch {
    throw new InvalidDpopProofError('DPoP proof signature is invalid');
  }
  context.jkt = await calculateJwkThumbprint(context.publicJwk!, 'sha256');
}
