import type { JSONWebKeySet, ProtectedHeaderParameters } from 'jose';
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

/** RFC 9068 §4, in order: syntax, header, signature, then the claims (only trusted once signed). */
export const ACCESS_TOKEN_RULES: readonly Rule<AccessTokenContext>[] = [
  wellFormedJwt,
  typHeader,
  algorithm,
  signature,
  issuer,
  requiredClaims,
  expiration,
  issuedAt,
  audience,
];

export interface VerifiedAccessToken {
  readonly header: ProtectedHeaderParameters;
  readonly claims: AccessTokenPayload;
}

/**
 * Validates one of our access tokens (RFC 9068 §4) against the issuer's public keys (the `/jwks` set).
 * Says nothing about the mission's state: introspection adds that (DESIGN 2.1 `active` needs both).
 * Failures are InvalidTokenError.
 */
export async function verifyAccessToken(token: string, publicKeys: JSONWebKeySet, options: AccessTokenVerificationOptions): Promise<VerifiedAccessToken> {
  const context: AccessTokenContext = {
    token,
    publicKeys,
    options,
    now: epochSeconds(options.clock.now()),
    tolerance: options.clockToleranceSeconds ?? 0,
  };
  await runRules(context, ACCESS_TOKEN_RULES);
  return { header: context.header!, claims: context.claims as unknown as AccessTokenPayload };
}
