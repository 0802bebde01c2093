import type { JSONWebKeySet, JWTPayload, ProtectedHeaderParameters } from 'jose';
import type { Clock } from '../pipeline/clock.js';
import type { VerifiedAccessTokens } from './verified-access-tokens.js';

export interface AccessTokenVerificationOptions {
  /** The issuer identifier the token must name in `iss`. */
  readonly issuer: string;
  readonly clock: Clock;
  /** Checked only when given: introspection (RFC 7662) answers for every audience, a resource server for itself (RFC 9068 §4). */
  readonly audience?: string;
  /** Clock skew tolerated on `exp` and `iat`. Default 0: the issuer's own clock decides. */
  readonly clockToleranceSeconds?: number;
  /** Signature-verified tokens remembered across calls (one per service, ADR 0062); without it every call verifies the signature. */
  readonly verifiedTokens?: VerifiedAccessTokens;
}

export interface AccessTokenContext {
  readonly token: string;
  readonly publicKeys: JSONWebKeySet;
  readonly options: AccessTokenVerificationOptions;
  readonly now: number;
  readonly tolerance: number;
  header?: ProtectedHeaderParameters;
  claims?: JWTPayload;
}
