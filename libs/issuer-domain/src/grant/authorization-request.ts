import type { DomainEvent } from '@mission/decider';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';
import { IssuerDomainError } from '../shared/errors.js';

/*
 * The pushed authorization request (RFC 9126) on stream `par-<request_id>`: received at `POST /par`,
 * then approved (creating mission and code) or declined, once. Expiry is a matter of time: the
 * request expires at `expires_at` without an event; approving or declining after that fails.
 */

// ---- events ----------------------------------------------------------------------------------

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

// ---- commands --------------------------------------------------------------------------------

export interface PushAuthorizationRequest {
  readonly type: 'push';
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
  readonly type: 'approve';
  /** The `client_id` sent to `/authorize` with the `request_uri`. */
  readonly clientId: string;
  readonly missionId: string;
  readonly grantId: string;
  readonly approvedBy: Actor;
  readonly now: Date;
}

export interface DeclineAuthorizationRequest {
  readonly type: 'decline';
  readonly clientId: string;
  readonly actor: Actor;
  readonly reason: string;
  readonly now: Date;
}

export type AuthorizationRequestCommand = PushAuthorizationRequest | ApproveAuthorizationRequest | DeclineAuthorizationRequest;

// ---- state -----------------------------------------------------------------------------------

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

// ---- errors (RFC 9126 §2.2 / RFC 6749 §4.1.2.1: `invalid_request_uri` at /authorize) ----------

export class AuthorizationRequestNotFoundError extends IssuerDomainError {
  readonly error: string = 'invalid_request_uri';
  constructor(message = 'the request_uri is unknown') {
    super(message);
  }
}

/**
 * The `request_uri` belongs to another client. A subclass of the not-found error on purpose: the
 * client must not learn that the request exists (answer it exactly like an unknown request_uri).
 */
export class AuthorizationRequestClientMismatchError extends AuthorizationRequestNotFoundError {}

export class AuthorizationRequestExpiredError extends IssuerDomainError {
  readonly error = 'invalid_request_uri';
  constructor() {
    super('the request_uri has expired');
  }
}

/** RFC 9126 §4: a request_uri is used once. */
export class AuthorizationRequestAlreadyUsedError extends IssuerDomainError {
  readonly error = 'invalid_request_uri';
  constructor() {
    super('the request_uri was already used');
  }
}

/** A second `push` on the same stream (ids are random: a bug). */
export class AuthorizationRequestExistsError extends IssuerDomainError {}
