import { InvalidGrantError } from '../../errors/invalid-grant.error.js';
import type { PkceVerificationContext } from '../context.js';

// RFC 7636 §4.5 / RFC 9700 §2.1.1: a code issued with a code_challenge is redeemed only with a code_verifier.
export function codeVerifierPresent({ codeVerifier }: PkceVerificationContext): void {
  if (codeVerifier === undefined || codeVerifier === '') throw new InvalidGrantError('PKCE verification failed: code_verifier is required');
}
