import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidGrantError } from '../../errors/invalid-grant.error.js';
import type { PkceVerificationContext } from '../context.js';

/** RFC 7636 §4.2 S256: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))). */
export function s256CodeChallenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}

// RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) equals the stored code_challenge, compared in constant time; else invalid_grant.
export function s256Matches({ codeVerifier, codeChallenge }: PkceVerificationContext): void {
  const expected = Buffer.from(s256CodeChallenge(codeVerifier!), 'utf8');
  const stored = Buffer.from(codeChallenge, 'utf8');
  if (expected.length !== stored.length || !timingSafeEqual(expected, stored)) throw new InvalidGrantError('PKCE verification failed');
}
