import type { Set as PersistentSet } from 'immutable';
import type { GrantRevocationReason } from './grant.events.js';

export interface Grant {
  readonly status: 'code_issued' | 'active' | 'revoked';
  /** An authorization code (DESIGN 2.3) or a Child Mission's creation grant (DESIGN 2.4). */
  readonly kind: 'authorization_code' | 'child_creation';
  readonly grantId: string;
  readonly missionId: string;
  readonly clientId: string;
  /** The hash of the code, or of the creation grant token. */
  readonly codeHash: string;
  /** Authorization codes only. */
  readonly redirectUri?: string;
  /** Authorization codes only. */
  readonly codeChallenge?: string;
  /** Creation grants only. */
  readonly parentMissionId?: string;
  /**
   * Creation grants only (spec 1 item 4, 2.5 rule 8, 5 rules 3–4): the DPoP key thumbprints of the parent
   * grant and of every ancestor grant. The child's tokens may never be bound to one of them.
   */
  readonly lineageJkts?: readonly string[];
  readonly dpopJkt?: string;
  readonly codeExpiresAt: Date;
  readonly issuedAt: Date;
  readonly codeRedeemed: boolean;
  /** Key binding after redemption. */
  readonly jkt?: string;
  readonly refreshTokenHash?: string;
  /** Hashes of rotated refresh tokens: presenting one again is reuse. */
  readonly retiredRefreshTokenHashes: PersistentSet<string>;
  readonly revocation?: { readonly reason: GrantRevocationReason; readonly at: Date };
}

export type GrantState = { readonly status: 'none' } | Grant;
