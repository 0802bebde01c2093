import type { JSONWebKeySet } from 'jose';
import { epochSeconds } from '../pipeline/clock.js';
import { runRules, type Rule } from '../pipeline/rule.js';
import type { AccessTokenPayload } from './claims.js';
import type { AccessTokenContext, AccessTokenVerificationOptions } from './context.js';
import { algorithm } from './rules/algorithm.js';
import { audience } from './rules/audience.js';
import { expiration } from './rules/expiration.js';
import { issuedAt } from './rules/issued-at.js';
import { issuer } from './rules/issuer.js';
import { requiredClaims } from './rules/required-claims.js';
import { signature } from './rules/signature.js';
import { typHeader } from './rules/typ-header.js';
import { wellFormedJwt } from './rules/well-formed-jwt.js';
import type { VerifiedAccessToken } from './verified-access-tokens.js';

export type { VerifiedAccessToken } from './verified-access-tokens.js';

/** RFC 9068 §4: syntax, header and signature — what a token's bytes alone decide, so what a cache may remember. */
export const SIGNATURE_RULES: readonly Rule<AccessTokenContext>[] = [wellFormedJwt, typHeader, algorithm, signature];

/** RFC 9068 §4: the claims against the issuer, the clock and the audience — run on every call, cached or not. */
export const CLAIM_RULES: readonly Rule<AccessTokenContext>[] = [issuer, requiredClaims, expiration, issuedAt, audience];

/** RFC 9068 §4, in order: syntax, header, signature, then the claims (only trusted once signed). */
export const ACCESS_TOKEN_RULES: readonly Rule<AccessTokenContext>[] = [...SIGNATURE_RULES, ...CLAIM_RULES];

/**
 * Validates one of our access tokens (RFC 9068 §4) against the issuer's public keys (the `/jwks` set).
 * Says nothing about the mission's state: introspection adds that (DESIGN 2.1 `active` needs both).
 * Failures are InvalidTokenError. With `options.verifiedTokens`, a token verified before under the same key set
 * skips SIGNATURE_RULES; CLAIM_RULES always run (issue 15, ADR 0062).
 */
export async function verifyAccessToken(token: string, publicKeys: JSONWebKeySet, options: AccessTokenVerificationOptions): Promise<VerifiedAccessToken> {
  const context: AccessTokenContext = {
    token,
    publicKeys,
    options,
    now: epochSeconds(options.clock.now()),
    tolerance: options.clockToleranceSeconds ?? 0,
  };
  const cache = options.verifiedTokens;
  const known = cache?.lookup(token, publicKeys, context.now);
  if (known !== undefined) {
    context.header = known.header;
    context.claims = known.claims as unknown as AccessTokenContext['claims'];
    await runRules(context, CLAIM_RULES);
    return known;
  }
  await runRules(context, ACCESS_TOKEN_RULES);
  const verified: VerifiedAccessToken = { header: context.header!, claims: context.claims as unknown as AccessTokenPayload };
  return cache === undefined ? verified : cache.remember(token, publicKeys, verified, context.now);
}
