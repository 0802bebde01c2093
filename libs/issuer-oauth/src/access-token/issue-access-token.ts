import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { CryptoKey } from 'jose';
import { InvalidGrantError } from '../errors/invalid-grant.error.js';
import { epochSeconds } from '../pipeline/clock.js';
import { signEs256Jws } from './sign-es256-jws.js';
import { ACCESS_TOKEN_ALG, ACCESS_TOKEN_TYP, type AccessTokenPayload, type AuthorizationDetail, type MissionClaim } from './claims.js';

/** The issuer's signing key; structurally what libs/platform's `SigningKeys` offers. */
export interface AccessTokenSigner {
  readonly privateKey: CryptoKey | KeyObject;
  readonly kid: string;
}

export interface AccessTokenRequest {
  /** The issuer identifier (`iss`). */
  readonly issuer: string;
  /** The subject the authority is for. */
  readonly subject: string;
  /** The resource server(s) the token is for. */
  readonly audience: string | readonly string[];
  readonly clientId: string;
  /** Thumbprint of the client's DPoP key (RFC 9449 §6.1 `cnf.jkt`). */
  readonly jkt: string;
  readonly authorizationDetails: readonly AuthorizationDetail[];
  readonly mission: MissionClaim;
  /** The mission's `expires_at`: no token outlives its mission (DESIGN 2.3). */
  readonly missionExpiresAt: Date;
  readonly issuedAt: Date;
  readonly ttlSeconds: number;
  /** Defaults to 128 random bits, base64url. */
  readonly jti?: string;
}

export interface IssuedAccessToken {
  readonly accessToken: string;
  readonly jti: string;
  readonly expiresAt: Date;
  /** For the token response's `expires_in` (RFC 6749 §5.1). */
  readonly expiresIn: number;
  readonly claims: AccessTokenPayload;
}

// DESIGN 2.3 / spec child-mission-delegation §2.1 (`expires_at` caps every derived token's exp): exp = min(iat + ttl, mission expiry).
export function cappedExpiry(issuedAt: number, ttlSeconds: number, missionExpiresAt: Date): number {
  const missionExpiry = epochSeconds(missionExpiresAt);
  if (missionExpiry <= issuedAt) throw new InvalidGrantError('the mission has expired', { missionError: 'mission_expired' });
  return Math.min(issuedAt + ttlSeconds, missionExpiry);
}

/** An RFC 9068 JWT access token (`typ: at+jwt`, ES256, `kid`), DPoP-bound and carrying the `mission` claim. */
export async function issueAccessToken(request: AccessTokenRequest, signer: AccessTokenSigner): Promise<IssuedAccessToken> {
  if (!Number.isInteger(request.ttlSeconds) || request.ttlSeconds < 1) throw new TypeError('ttlSeconds must be a positive integer');
  if (request.mission.issuer !== request.issuer) throw new TypeError('the mission claim must name this issuer');
  const iat = epochSeconds(request.issuedAt);
  const exp = cappedExpiry(iat, request.ttlSeconds, request.missionExpiresAt);
  const claims: AccessTokenPayload = {
    iss: request.issuer,
    sub: request.subject,
    aud: typeof request.audience === 'string' ? request.audience : [...request.audience],
    client_id: request.clientId,
    iat,
    exp,
    jti: request.jti ?? randomBytes(16).toString('base64url'),
    authorization_details: request.authorizationDetails,
    cnf: { jkt: request.jkt },
    mission: request.mission,
  };
  const accessToken = signEs256Jws({ alg: ACCESS_TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: signer.kid }, claims, signer.privateKey);
  return { accessToken, jti: claims.jti, expiresAt: new Date(exp * 1000), expiresIn: exp - iat, claims };
}
