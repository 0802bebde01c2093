import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';

export interface AuthorizationRequest {
  readonly status: 'pending' | 'approved' | 'declined';
  readonly requestId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state?: string;
  readonly dpopJkt?: string;
  readonly authoritySet: AuthoritySet;
  readonly intent: MissionIntent;
  readonly expiresAt: Date;
  readonly receivedAt: Date;
  /** Set once approved. */
  readonly approval?: { readonly missionId: string; readonly grantId: string; readonly approvedBy: Actor; readonly at: Date };
}

export type AuthorizationRequestState = { readonly status: 'none' } | AuthorizationRequest;

export type AuthorizationRequestStatus = 'pending' | 'expired' | 'approved' | 'declined';
