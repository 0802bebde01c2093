import type { DomainEvent } from '@mission/decider';
import type { Actor } from '../shared/actor.js';

/*
 * The authorization grant on stream `grant-<grant_id>`: one authorization code, redeemed once,
 * then a chain of refresh tokens (each rotation retires the previous one). Only SHA-256 hashes of
 * codes and refresh tokens are stored (grant-ids.ts explains the token format). Single use is
 * enforced by appending with the revision the decision was made on.
 *
 * The mission's own state is not known here: the application calls `assertDerivable` on the
 * mission stream (and every ancestor's, DESIGN 2.4) before redeeming or refreshing.
 */

// ---- events ----------------------------------------------------------------------------------

export interface AuthorizationCodeIssuedData {
  readonly grant_id: string;
  readonly mission_id: string;
  readonly client_id: string;
  /** base64url(SHA-256(code)). */
  readonly code_hash: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly code_challenge_method: 'S256';
  /** RFC 9449 §10: the code may only be redeemed with a proof of this key. */
  readonly dpop_jkt?: string;
  /** The pushed authorization request this code answers. */
  readonly request_id?: string;
  readonly expires_at: string;
  readonly occurred_at: string;
}

export interface AuthorizationCodeRedeemedData {
  readonly grant_id: string;
  readonly client_id: string;
  /** The DPoP key every token of this grant is bound to from now on. */
  readonly jkt: string;
  readonly occurred_at: string;
}

export interface RefreshTokenIssuedData {
  readonly grant_id: string;
  readonly refresh_token_hash: string;
  readonly jkt: string;
  readonly occurred_at: string;
}

export interface RefreshTokenRotatedData {
  readonly grant_id: string;
  readonly previous_hash: string;
  readonly refresh_token_hash: string;
  readonly jkt: string;
  readonly occurred_at: string;
}

/**
 * - `authorization_code_reuse`: RFC 6749 §4.1.2, a code presented after it was redeemed;
 * - `refresh_token_reuse`: a retired (rotated) refresh token presented again;
 * - `client_revocation`: RFC 7009 revocation by the client;
 * - `administrative`: by an administrator or a process of the issuer.
 */
export const GRANT_REVOCATION_REASONS = ['authorization_code_reuse', 'refresh_token_reuse', 'client_revocation', 'administrative'] as const;
export type GrantRevocationReason = (typeof GRANT_REVOCATION_REASONS)[number];

export interface GrantRevokedData {
  readonly grant_id: string;
  readonly mission_id: string;
  readonly reason: GrantRevocationReason;
  /** Who caused it: for reuse, the client that presented the used credential. */
  readonly actor: Actor;
  readonly occurred_at: string;
}

export type AuthorizationCodeIssued = DomainEvent<'AuthorizationCodeIssued', AuthorizationCodeIssuedData>;
export type AuthorizationCodeRedeemed = DomainEvent<'AuthorizationCodeRedeemed', AuthorizationCodeRedeemedData>;
export type RefreshTokenIssued = DomainEvent<'RefreshTokenIssued', RefreshTokenIssuedData>;
export type RefreshTokenRotated = DomainEvent<'RefreshTokenRotated', RefreshTokenRotatedData>;
export type GrantRevoked = DomainEvent<'GrantRevoked', GrantRevokedData>;
export type GrantEvent = AuthorizationCodeIssued | AuthorizationCodeRedeemed | RefreshTokenIssued | RefreshTokenRotated | GrantRevoked;

// ---- commands (hashes are computed by the application: grantTokenHash, S256 of the verifier) ---

export interface IssueAuthorizationCode {
  readonly type: 'issueCode';
  readonly grantId: string;
  readonly missionId: string;
  readonly clientId: string;
  readonly codeHash: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly dpopJkt?: string;
  readonly requestId?: string;
  readonly expiresAt: Date;
  readonly now: Date;
}

export interface RedeemAuthorizationCode {
  readonly type: 'redeemCode';
  readonly codeHash: string;
  /** The authenticated client. */
  readonly clientId: string;
  readonly redirectUri: string;
  /** base64url(SHA-256(ASCII(code_verifier))), RFC 7636 §4.6. */
  readonly codeVerifierChallenge: string;
  /** Thumbprint of the DPoP proof key of the token request (every token is DPoP-bound, DESIGN 2.2). */
  readonly dpopJkt: string;
  /** When the client may refresh: the first refresh token, issued in the same decision. */
  readonly refreshTokenHash?: string;
  readonly now: Date;
}

export interface RotateRefreshToken {
  readonly type: 'refresh';
  readonly refreshTokenHash: string;
  readonly newRefreshTokenHash: string;
  readonly clientId: string;
  readonly dpopJkt: string;
  readonly now: Date;
}

/** RFC 7009 revocation of a refresh token by its client. */
export interface RevokeRefreshToken {
  readonly type: 'revokeRefreshToken';
  readonly refreshTokenHash: string;
  readonly clientId: string;
  readonly now: Date;
}

export interface RevokeGrant {
  readonly type: 'revokeGrant';
  readonly actor: Actor;
  readonly now: Date;
}

export type GrantCommand = IssueAuthorizationCode | RedeemAuthorizationCode | RotateRefreshToken | RevokeRefreshToken | RevokeGrant;

// ---- state -----------------------------------------------------------------------------------

export interface Grant {
  readonly status: 'code_issued' | 'active' | 'revoked';
  readonly grantId: string;
  readonly missionId: string;
  readonly clientId: string;
  readonly codeHash: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly dpopJkt?: string;
  readonly codeExpiresAt: Date;
  readonly issuedAt: Date;
  readonly codeRedeemed: boolean;
  /** Key binding after redemption. */
  readonly jkt?: string;
  readonly refreshTokenHash?: string;
  /** Hashes of rotated refresh tokens: presenting one again is reuse. */
  readonly retiredRefreshTokenHashes: ReadonlySet<string>;
  readonly revocation?: { readonly reason: GrantRevocationReason; readonly at: Date };
}

export type GrantState = { readonly status: 'none' } | Grant;
