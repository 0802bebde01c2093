import { InvalidRequestError } from '@mission/protocol-errors';
import type { CodeChallengeContext } from '../context.js';

// RFC 7636 §4.3 (absent means plain) and §4.2 / RFC 9700 §2.1.1: only S256 is accepted; plain, or no method at all, is refused.
export function codeChallengeMethodS256({ codeChallengeMethod }: CodeChallengeContext): void {
  if (codeChallengeMethod !== 'S256') throw new InvalidRequestError('code_challenge_method must be S256');
}
