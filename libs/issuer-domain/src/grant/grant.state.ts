import type { GrantRevocationReason } from './grant.events.js';

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
