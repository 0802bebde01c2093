import type { RevocationFailure, TokenIdentity, TokenRevoker, TreeRelationship } from './tracked-token.events.js';

/** One Tracked Auth Token (spec 2.6) and where its revocation stands (spec 4.4). */
export interface TrackedToken extends TokenIdentity {
  readonly aud: string;
  /** Unknown only for a federated token (spec 4.4 rule 5: the residual is then unbounded). */
  readonly exp?: Date;
  readonly issuedAt: Date;
  readonly origin: 'issued' | 'federated';
  readonly revocationEndpoint?: string;
  readonly agent: string;
  readonly relationship: TreeRelationship;
  readonly parentAgent?: string;
  readonly upstream?: TokenIdentity;
  /** False when the token was withheld (never handed out): it is then no residual. */
  readonly released: boolean;
  /** Attempts recorded so far. */
  readonly attempts: number;
  /** The highest attempt whose result is recorded. */
  readonly answered: number;
  /** Confirmed revoked where it is accepted: a `200` of its resource, or a revocation by its audience (ADR 0016). */
  readonly confirmedAt?: Date;
  /** Revoked at the PS's revocation endpoint (DESIGN 3.1): the PS no longer honours it (e.g. as `upstream_token`). */
  readonly revokedBy?: TokenRevoker;
  readonly lastFailure?: RevocationFailure;
  readonly stopped?: 'expired' | 'attempts_exhausted';
}

/** The Tracked Auth Tokens of one mission (stream `pstokens-<s256>`), in issuance order. */
export interface TrackedTokensState {
  readonly approver?: string;
  readonly missionS256?: string;
  /** The `sequence` of the stream's last event (0 before the first). */
  readonly sequence: number;
  readonly tokens: ReadonlyMap<string, TrackedToken>;
}

export const initialTrackedTokensState: TrackedTokensState = { sequence: 0, tokens: new Map() };

/** The map key of a token: `(iss, jti)` as a pair, so no `iss` can be confused with another's `jti` (spec 2.6). */
export function tokenKey(identity: TokenIdentity): string {
  return JSON.stringify([identity.iss, identity.jti]);
}

export function isExpired(token: TrackedToken, now: Date): boolean {
  return token.exp !== undefined && token.exp.getTime() <= now.getTime();
}

/**
 * Spec 4.4 rule 1: tokens the PS still has to try to revoke: handed out, not confirmed revoked, not
 * naturally expired, not given up on.
 */
export function revocationCandidates(state: TrackedTokensState, now: Date): TrackedToken[] {
  return [...state.tokens.values()].filter((token) => token.released && token.confirmedAt === undefined && token.stopped === undefined && !isExpired(token, now));
}

/** Handed-out tokens that are neither confirmed revoked nor expired: the residual (spec 2.5). */
export function unconfirmedLiveTokens(state: TrackedTokensState, now: Date): TrackedToken[] {
  return [...state.tokens.values()].filter((token) => token.released && token.confirmedAt === undefined && !isExpired(token, now));
}
