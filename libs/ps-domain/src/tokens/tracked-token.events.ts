import type { DomainEvent } from '@mission/decider';
import type { Actor } from '../shared/actor.js';

/** Spec 2.6: a Tracked Auth Token is identified by `(iss, jti)` together, never by `jti` alone. */
export interface TokenIdentity {
  readonly iss: string;
  readonly jti: string;
}

/** Published policy references recorded as the authorization decision of token log events (spec 2.8, 8). */
export const TOKEN_POLICIES = {
  /** The Owning Agent asked for the token for itself or for one of its sub-agents (DESIGN 3.3). */
  owningAgent: 'ps:owning-agent-token-request',
  /** A resource called onwards with an Auth Token of this mission as `upstream_token` (DESIGN 3.3). */
  callChain: 'ps:call-chain-token-request',
  /** Durable revocation after termination (spec 4.4, DESIGN 3.3). */
  revocation: 'ps:revocation-after-termination',
  /** DESIGN 3.1 revocation endpoint: the token's holder or its audience revoked it by `(iss, jti)` (ADR 0016). */
  revocationRequest: 'ps:token-revocation-request',
} as const;
export type TokenPolicy = (typeof TOKEN_POLICIES)[keyof typeof TOKEN_POLICIES];

/**
 * Spec 2.8 members of every event on `pstokens-<s256>`: the Mission Reference, the stream-local
 * ordered `sequence` (1, 2, … — the mission log is `psmission-<s256>` and `pstokens-<s256>` together,
 * each ordered, both hash-chained), time, actor and role, authorization decision and policy.
 */
export interface TokenLogData {
  readonly approver: string;
  readonly mission_s256: string;
  readonly sequence: number;
  readonly occurred_at: string;
  readonly actor: Actor;
  readonly authorization: { readonly decision: 'permit'; readonly policy: TokenPolicy };
}

/** Spec 2.7 relationships an Auth Token's holder has in the mission's delegation tree. */
export type TreeRelationship = 'root' | 'sub_agent' | 'call_chain';

/**
 * Spec 2.6: an Auth Token the PS issued under the mission. Never the token itself (spec 2.8): its
 * identity, audience, expiry, where to revoke it, and the verified facts that place its holder in
 * the delegation tree (spec 4.3 rule 4).
 */
export interface AuthTokenIssuedData extends TokenLogData, TokenIdentity {
  /** The resource the token is for (the Resource Token's `iss`). */
  readonly aud: string;
  /** RFC 3339; absent only for a federated token whose expiry is unknown (spec 4.4 rule 5). */
  readonly exp?: string;
  readonly issued_at: string;
  /** `issued` by this PS or obtained by `federation` (spec 2.6). */
  readonly origin: 'issued' | 'federated';
  /** The resource's revocation endpoint when it advertises one (spec 2.6). */
  readonly revocation_endpoint?: string;
  /** The holder: the agent whose key is the token's `cnf`. */
  readonly agent: string;
  readonly relationship: TreeRelationship;
  /** Present on every non-root relationship (spec 2.7). */
  readonly parent_agent?: string;
  /** `call_chain`: the Auth Token of this mission the resource presented as `upstream_token`. */
  readonly upstream?: TokenIdentity;
  readonly scope?: string;
}

/**
 * The token was recorded but never handed out: the mission terminated between the issuance decision
 * and the answer (spec 3 rule 3). It counts for nothing in the residual.
 */
export interface AuthTokenWithheldData extends TokenLogData, TokenIdentity {
  readonly reason: 'mission_terminated';
}

/** Spec 6 "token revocation": an attempt, recorded before the call is made. */
export interface TokenRevocationAttemptedData extends TokenLogData, TokenIdentity {
  /** 1 for the first attempt for this token, then +1. */
  readonly attempt: number;
  readonly endpoint?: string;
}

/** Spec 4.4 rule 3: a `200` answer to the attempt closes the residual for this token. */
export interface TokenRevocationConfirmedData extends TokenLogData, TokenIdentity {
  readonly attempt: number;
  readonly http_status: 200;
}

/** What an unconfirmed attempt ran into (spec 4.4 rule 3: all of these stay unconfirmed). */
export const REVOCATION_FAILURES = ['no_endpoint', 'unreachable', 'timeout', 'server_error', 'rejected', 'ambiguous'] as const;
export type RevocationFailure = (typeof REVOCATION_FAILURES)[number];

export interface TokenRevocationFailedData extends TokenLogData, TokenIdentity {
  readonly attempt: number;
  readonly outcome: RevocationFailure;
  readonly http_status?: number;
}

/** The PS stopped trying: the token expired (natural expiry closes the residual) or the attempts ran out. */
export interface TokenRevocationStoppedData extends TokenLogData, TokenIdentity {
  readonly reason: 'expired' | 'attempts_exhausted';
}

/** Who revoked an Auth Token at the PS's revocation endpoint (DESIGN 3.1, ADR 0016). */
export type TokenRevoker = 'holder' | 'audience';

/**
 * DESIGN 3.1 revocation endpoint: the holder (the agent the token was issued to) or the audience (the resource it
 * is for) revoked the token. The PS refuses it from then on. Revoked by its audience, the token is also confirmed
 * revoked where it is accepted (spec 4.4 rule 3); revoked by its holder, only local state changed, so its residual
 * stays open until the resource confirms or it expires (spec 4.4 rule 4).
 */
export interface AuthTokenRevokedData extends TokenLogData, TokenIdentity {
  readonly revoked_by: TokenRevoker;
}

export type AuthTokenIssued = DomainEvent<'AuthTokenIssued', AuthTokenIssuedData>;
export type AuthTokenWithheld = DomainEvent<'AuthTokenWithheld', AuthTokenWithheldData>;
export type TokenRevocationAttempted = DomainEvent<'TokenRevocationAttempted', TokenRevocationAttemptedData>;
export type TokenRevocationConfirmed = DomainEvent<'TokenRevocationConfirmed', TokenRevocationConfirmedData>;
export type TokenRevocationFailed = DomainEvent<'TokenRevocationFailed', TokenRevocationFailedData>;
export type TokenRevocationStopped = DomainEvent<'TokenRevocationStopped', TokenRevocationStoppedData>;
export type AuthTokenRevoked = DomainEvent<'AuthTokenRevoked', AuthTokenRevokedData>;

export type TrackedTokenEvent =
  | AuthTokenIssued
  | AuthTokenWithheld
  | TokenRevocationAttempted
  | TokenRevocationConfirmed
  | TokenRevocationFailed
  | TokenRevocationStopped
  | AuthTokenRevoked;

export const TRACKED_TOKEN_EVENT_TYPES = [
  'AuthTokenIssued',
  'AuthTokenWithheld',
  'TokenRevocationAttempted',
  'TokenRevocationConfirmed',
  'TokenRevocationFailed',
  'TokenRevocationStopped',
  'AuthTokenRevoked',
] as const satisfies readonly TrackedTokenEvent['type'][];
