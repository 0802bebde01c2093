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

/**
 * DESIGN 2.4: the grant of a Child Mission, redeemed by the child actor at `/token` with the
 * `mission-child-creation` grant type. Its reference (the `request_uri` the parent conveys) is
 * `urn:ietf:params:oauth:request_uri:<grant_id>.<secret>`; only the hash of `<grant_id>.<secret>` is stored.
 */
export interface ChildGrantIssuedData {
  readonly grant_id: string;
  /** The Child Mission. */
  readonly mission_id: string;
  readonly parent_mission_id: string;
  /** The child actor: the only client that may redeem it. */
  readonly client_id: string;
  readonly grant_hash: string;
  /** Key thumbprints of the parent grant and every ancestor grant: redemption with one of them is refused. Absent in records written before this rule. */
  readonly lineage_jkts?: readonly string[];
  readonly expires_at: string;
  readonly occurred_at: string;
}

export interface ChildGrantRedeemedData {
  readonly grant_id: string;
  readonly client_id: string;
  /** The child actor's own DPoP key (spec 2.5 rule 8): every token of this grant is bound to it. */
  readonly jkt: string;
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
 * - `administrative`: by an administrator or a process of the issuer;
 * - `child_grant_reuse`: a Child Mission's creation grant presented after it was redeemed;
 * - `child_grant_unredeemed`: the creation grant lapsed unredeemed and the Child Mission was revoked (DESIGN 2.4).
 */
export const GRANT_REVOCATION_REASONS = [
  'authorization_code_reuse',
  'refresh_token_reuse',
  'client_revocation',
  'administrative',
  'child_grant_reuse',
  'child_grant_unredeemed',
] as const;
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
export type ChildGrantIssued = DomainEvent<'ChildGrantIssued', ChildGrantIssuedData>;
export type ChildGrantRedeemed = DomainEvent<'ChildGrantRedeemed', ChildGrantRedeemedData>;
export type GrantEvent =
  | AuthorizationCodeIssued
  | AuthorizationCodeRedeemed
  | ChildGrantIssued
  | ChildGrantRedeemed
  | RefreshTokenIssued
  | RefreshTokenRotated
  | GrantRevoked;
