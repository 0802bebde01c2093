import { InvalidRequestError } from '@mission/protocol-errors';
import type { CodeChallengeContext } from '../context.js';

// RFC 7636 §4.3 / RFC 9700 §2.1.1 (PKCE required, DESIGN 2.3): the authorization request carries a code_challenge.
export function codeChallengePresent({ codeChallenge }: CodeChallengeContext): void {
  if (codeChallenge === undefined || codeChallenge === '') throw new InvalidRequestError('code_challenge is required');
}
