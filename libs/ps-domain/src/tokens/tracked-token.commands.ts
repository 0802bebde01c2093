import type { Actor } from '../shared/actor.js';
import type { RevocationFailure, TokenIdentity, TokenPolicy, TokenRevoker, TreeRelationship } from './tracked-token.events.js';

/** The verified facts of a token the PS is about to hand out (spec 2.6). */
export interface IssuedTokenFacts extends TokenIdentity {
  readonly aud: string;
  readonly exp?: Date;
  readonly origin: 'issued' | 'federated';
  readonly revocationEndpoint?: string;
  readonly agent: string;
  readonly relationship: TreeRelationship;
  readonly parentAgent?: string;
  readonly upstream?: TokenIdentity;
  readonly scope?: string;
}

/** Records a Tracked Auth Token before it is returned to the agent (spec 2.6). */
export interface RecordIssuedToken {
  readonly type: 'RecordIssuedToken';
  readonly approver: string;
  readonly missionS256: string;
  readonly token: IssuedTokenFacts;
  readonly actor: Actor;
  readonly policy: TokenPolicy;
  readonly now: Date;
}

/** The mission terminated before the token left the PS (spec 3 rule 3): it is never handed out. */
export interface WithholdToken {
  readonly type: 'WithholdToken';
  readonly token: TokenIdentity;
  readonly actor: Actor;
  readonly now: Date;
}

/** Spec 4.4, 6: attempts about to be made (one event each; tokens no longer in need are skipped). */
export interface RecordRevocationAttempts {
  readonly type: 'RecordRevocationAttempts';
  readonly tokens: readonly TokenIdentity[];
  readonly now: Date;
}

export interface RevocationResult extends TokenIdentity {
  readonly attempt: number;
  readonly outcome: 'confirmed' | RevocationFailure;
  readonly httpStatus?: number;
}

/** Spec 4.4, 6: results of attempts (a second confirmation of a token records nothing). */
export interface RecordRevocationResults {
  readonly type: 'RecordRevocationResults';
  readonly results: readonly RevocationResult[];
  readonly now: Date;
}

/** The PS stops trying for these tokens (expired, or attempts exhausted). */
export interface StopRevocations {
  readonly type: 'StopRevocations';
  readonly tokens: readonly TokenIdentity[];
  readonly reason: 'expired' | 'attempts_exhausted';
  readonly now: Date;
}

/** DESIGN 3.1 revocation endpoint: the holder or the audience revokes a handed-out token (ADR 0016). */
export interface RevokeToken {
  readonly type: 'RevokeToken';
  readonly token: TokenIdentity;
  readonly by: TokenRevoker;
  readonly actor: Actor;
  readonly now: Date;
}

export type TrackedTokenCommand = RecordIssuedToken | WithholdToken | RecordRevocationAttempts | RecordRevocationResults | StopRevocations | RevokeToken;
