import { runSyncRules, type SyncRule } from '../pipeline/rule.js';
import type { CodeChallengeContext, PkceVerificationContext } from './context.js';
import { codeChallengeMethodS256 } from './rules/code-challenge-method-s256.js';
import { codeChallengePresent } from './rules/code-challenge-present.js';
import { codeChallengeSyntax } from './rules/code-challenge-syntax.js';
import { codeVerifierPresent } from './rules/code-verifier-present.js';
import { codeVerifierSyntax } from './rules/code-verifier-syntax.js';
import { s256Matches } from './rules/s256-matches.js';

export const PKCE_VERIFICATION_RULES: readonly SyncRule<PkceVerificationContext>[] = [codeVerifierPresent, codeVerifierSyntax, s256Matches];

export const CODE_CHALLENGE_RULES: readonly SyncRule<CodeChallengeContext>[] = [codeChallengePresent, codeChallengeMethodS256, codeChallengeSyntax];

/**
 * Token endpoint: the `code_verifier` redeems the S256 `code_challenge` stored with the code (RFC 7636
 * §4.5, §4.6). Missing or wrong → invalid_grant; malformed → invalid_request.
 */
export function verifyPkce(codeVerifier: string | undefined, codeChallenge: string): void {
  runSyncRules<PkceVerificationContext>({ codeVerifier, codeChallenge }, PKCE_VERIFICATION_RULES);
}

/** PAR: the request carries an S256 `code_challenge` (RFC 7636 §4.2, §4.3); anything else is invalid_request. */
export function assertCodeChallenge(codeChallenge: string | undefined, codeChallengeMethod: string | undefined): void {
  runSyncRules<CodeChallengeContext>({ codeChallenge, codeChallengeMethod }, CODE_CHALLENGE_RULES);
}
