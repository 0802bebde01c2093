import type { Actor } from '../shared/actor.js';

/* Hashes are computed by the application (grantTokenHash; S256 of the code_verifier). */

export interface IssueAuthorizationCode {
  readonly type: 'IssueAuthorizationCode';
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
  readonly type: 'RedeemAuthorizationCode';
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
  readonly type: 'RotateRefreshToken';
  readonly refreshTokenHash: string;
  readonly newRefreshTokenHash: string;
  readonly clientId: string;
  readonly dpopJkt: string;
  readonly now: Date;
}

/** RFC 7009 revocation of a refresh token by its client. */
export interface RevokeRefreshToken {
  readonly type: 'RevokeRefreshToken';
  readonly refreshTokenHash: string;
  readonly clientId: string;
  readonly now: Date;
}

export interface RevokeGrant {
  readonly type: 'RevokeGrant';
  readonly actor: Actor;
  readonly now: Date;
}

/** DESIGN 2.4: the creation grant of a Child Mission, issued at the creation commit. */
export interface IssueChildGrant {
  readonly type: 'IssueChildGrant';
  readonly grantId: string;
  readonly missionId: string;
  readonly parentMissionId: string;
  /** The child actor (`child_actor.sub`). */
  readonly clientId: string;
  /** grantTokenHash of the grant token inside the `request_uri`. */
  readonly grantHash: string;
  /** The key thumbprints of the parent grant and every ancestor grant (the parent grant's own `lineageJkts` plus its `jkt`). */
  readonly lineageJkts: readonly string[];
  readonly expiresAt: Date;
  readonly now: Date;
}

/** DESIGN 2.4 redemption by the child actor with its own key; single use (a second use revokes the grant). */
export interface RedeemChildGrant {
  readonly type: 'RedeemChildGrant';
  readonly grantHash: string;
  readonly clientId: string;
  readonly dpopJkt: string;
  readonly refreshTokenHash?: string;
  readonly now: Date;
}

/** The creation grant lapsed unredeemed (from the process manager); revoking a redeemed grant decides nothing. */
export interface LapseChildGrant {
  readonly type: 'LapseChildGrant';
  readonly actor: Actor;
  readonly now: Date;
}

export type GrantCommand =
  | IssueAuthorizationCode
  | RedeemAuthorizationCode
  | IssueChildGrant
  | RedeemChildGrant
  | LapseChildGrant
  | RotateRefreshToken
  | RevokeRefreshToken
  | RevokeGrant;
