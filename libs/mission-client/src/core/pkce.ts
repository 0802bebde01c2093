import { sha256 } from '@noble/hashes/sha2.js';
import { base64url, utf8 } from './encoding.js';

/** RFC 7636: a 43-character verifier (32 random bytes) and its S256 challenge (synchronous, isomorphic). */
export function createPkcePair(): { verifier: string; challenge: string; method: 'S256' } {
  const verifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: base64url(sha256(utf8(verifier))), method: 'S256' };
}
