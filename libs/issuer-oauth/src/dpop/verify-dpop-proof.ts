import { ASYMMETRIC_ALGORITHMS } from '../errors/dpop-algorithms.js';
import { epochSeconds } from '../pipeline/clock.js';
import { runRules, type Rule } from '../pipeline/rule.js';
import type { DpopProofContext, DpopRequest, DpopVerificationDeps, VerifiedDpopProof } from './context.js';
import { athMatchesToken } from './rules/access-token-hash.js';
import { algorithm } from './rules/algorithm.js';
import { htm } from './rules/htm.js';
import { htu } from './rules/htu.js';
import { iatWindow } from './rules/iat-window.js';
import { jtiSingleUse } from './rules/jti-single-use.js';
import { nonce } from './rules/nonce.js';
import { publicJwk } from './rules/public-jwk.js';
import { requiredClaims } from './rules/required-claims.js';
import { signature } from './rules/signature.js';
import { singleDpopHeader } from './rules/single-dpop-header.js';
import { typHeader } from './rules/typ-header.js';
import { wellFormedJwt } from './rules/well-formed-jwt.js';

export const DEFAULT_DPOP_IAT_WINDOW_SECONDS = 60;

/** RFC 9449 §4.3 in its own order (step 7 before 6, see public-jwk), replay recorded last. */
export const DPOP_PROOF_RULES: readonly Rule<DpopProofContext>[] = [
  singleDpopHeader,
  wellFormedJwt,
  requiredClaims,
  typHeader,
  algorithm,
  publicJwk,
  signature,
  htm,
  htu,
  nonce,
  iatWindow,
  athMatchesToken,
  jtiSingleUse,
];

/**
 * Checks the DPoP proof of a request (RFC 9449 §4.3). Failures are InvalidDpopProofError (400), or
 * UseDpopNonceError when a nonce is required and missing or stale.
 */
export async function verifyDpopProof(request: DpopRequest, deps: DpopVerificationDeps): Promise<VerifiedDpopProof> {
  const context: DpopProofContext = {
    request,
    deps,
    algorithms: deps.algorithms ?? ASYMMETRIC_ALGORITHMS,
    now: epochSeconds(deps.clock.now()),
    iatWindow: deps.iatWindowSeconds ?? DEFAULT_DPOP_IAT_WINDOW_SECONDS,
  };
  await runRules(context, DPOP_PROOF_RULES);
  return { jkt: context.jkt!, jwk: context.publicJwk!, jti: context.claims!.jti!, iat: context.claims!.iat! };
}
