import type { DomainEvent } from '@mission/decider';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';

/*
 * The pushed authorization request (RFC 9126) on stream `par-<request_id>`: received at `POST /par`,
 * then approved (creating mission and code) or declined, once. Expiry is a matter of time: the
 * request expires at `expires_at` without an event; approving or declining after that fails.
 */

export interface PushedAuthorizationRequestReceivedData {
  readonly request_id: string;
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly code_challenge_method: 'S256';
  /** The client's opaque `state`, returned with the code. */
  readonly state?: string;
  /** RFC 9449 §10: the key the code will be bound to. */
  readonly dpop_jkt?: string;
  /** Normalised proposed Authority Set, shown on the consent page. */
  readonly authority_set: AuthoritySet;
  readonly intent: MissionIntent;
  /** The request_uri's expiry. */
  readonly expires_at: string;
  readonly occurred_at: string;
}

export interface AuthorizationRequestApprovedData {
  readonly request_id: string;
  /** The mission this approval creates, and the grant that carries its code: decided here, once. */
  readonly mission_id: string;
  readonly grant_id: string;
  readonly approved_by: Actor;
  readonly occurred_at: string;
}

export interface AuthorizationRequestDeclinedData {
  readonly request_id: string;
  readonly actor: Actor;
  readonly reason: string;
  readonly occurred_at: string;
}

export type PushedAuthorizationRequestReceived = DomainEvent<'PushedAuthorizationRequestReceived', PushedAuthorizationRequestReceivedData>;
export type AuthorizationRequestApproved = DomainEvent<'AuthorizationRequestApproved', AuthorizationRequestApprovedData>;
export type AuthorizationRequestDeclined = DomainEvent<'AuthorizationRequestDeclined', AuthorizationRequestDeclinedData>;
export type AuthorizationRequestEvent = PushedAuthorizationRequestReceived | AuthorizationRequestApproved | AuthorizationRequestDeclined;
