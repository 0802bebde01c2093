import { InvalidRequestError } from '@mission/protocol-errors';
import { CODE_VERIFIER, type PkceVerificationContext } from '../context.js';

// RFC 7636 §4.1: code_verifier is 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~".
export function codeVerifierSyntax({ codeVerifier }: PkceVerificationContext): void {
  if (!CODE_VERIFIER.test(codeVerifier!)) throw new InvalidRequestError('code_verifier must be 43 to 128 unreserved characters');
}
