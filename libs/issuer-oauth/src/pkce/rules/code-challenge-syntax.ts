import { InvalidRequestError } from '@mission/protocol-errors';
import { S256_CODE_CHALLENGE, type CodeChallengeContext } from '../context.js';

// RFC 7636 §4.2: an S256 code_challenge is the unpadded base64url of a SHA-256 digest (43 characters).
export function codeChallengeSyntax({ codeChallenge }: CodeChallengeContext): void {
  if (!S256_CODE_CHALLENGE.test(codeChallenge!)) throw new InvalidRequestError('code_challenge must be a base64url SHA-256 digest (43 characters)');
}
