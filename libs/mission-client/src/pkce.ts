import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636: a 43-character verifier (32 random bytes) and its S256 challenge. */
export function createPkcePair(): { verifier: string; challenge: string; method: 'S256' } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url'), method: 'S256' };
}
