import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';

export interface PushAuthorizationRequest {
  readonly type: 'PushAuthorizationRequest';
  readonly requestId: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly codeChallengeMethod: 'S256';
  readonly state?: string;
  readonly dpopJkt?: string;
  /** From parseAuthorizationDetails. */
  readonly authoritySet: AuthoritySet;
  /** From parseMissionIntent. */
  readonly intent: MissionIntent;
  readonly expiresAt: Date;
  readonly now: Date;
}

/** `/authorize` approval (consent page or the client's approval policy). */
export interface ApproveAuthorizationRequest {
  readonly type: 'ApproveAuthorizationRequest';
  /** The `client_id` sent to `/authorize` with the `request_uri`. */
  readonly clientId: string;
  readonly missionId: string;
  readonly grantId: string;
  readonly approvedBy: Actor;
  readonly now: Date;
}

export interface DeclineAuthorizationRequest {
  readonly type: 'DeclineAuthorizationRequest';
  readonly clientId: string;
  readonly actor: Actor;
  readonly reason: string;
  readonly now: Date;
}

export type AuthorizationRequestCommand = PushAuthorizationRequest | ApproveAuthorizationRequest | DeclineAuthorizationRequest;
