import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import {
  authorityHash,
  authorizationRequestDecider,
  grantDecider,
  grantIdFromBytes,
  grantStreamName,
  grantTokenFromBytes,
  grantTokenHash,
  missionDecider,
  missionIdFromBytes,
  missionStreamName,
  parStreamName,
  pendingAuthorizationRequest,
  requestIdFromBytes,
  requestIdFromUri,
  requestUriFor,
  type Actor,
  type AuthorizationRequest,
  type PushAuthorizationRequest,
} from '@mission/issuer-domain';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE } from '@mission/platform';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { asProtocolErrors } from './domain-errors.js';
import { REQUEST_URI_LIFETIME_SECONDS } from './par-steps.js';

/** RFC 6749 §4.1.2: a code lives briefly (a minute, as recommended maximum is 10). */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;

export interface Redirect {
  readonly location: string;
}

/**
 * The pushed requests and their outcome: record (`par-<id>`), look up for `/authorize`, approve
 * (mission + one-time code) or decline. The approval's append order is decision 0008.
 */
@Injectable()
export class AuthorizationRequests {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly oauth: IssuerOAuth,
  ) {}

  /** RFC 9126 §2.2: records the request on a fresh `par-<id>` (expected revision no_stream). */
  async push(request: Omit<PushAuthorizationRequest, 'type' | 'requestId' | 'expiresAt' | 'now'>): Promise<{ requestUri: string; expiresIn: number }> {
    const now = this.clock.now();
    const requestId = requestIdFromBytes(randomBytes(16));
    const actor = { id: request.clientId, role: 'client' };
    const command: PushAuthorizationRequest = {
      ...request,
      type: 'push',
      requestId,
      expiresAt: new Date(now.getTime() + REQUEST_URI_LIFETIME_SECONDS * 1000),
      now,
    };
    await asProtocolErrors(() => handleCommand(this.store, parStreamName(requestId), authorizationRequestDecider, command, this.context(actor, `par:${requestId}`, now)));
    return { requestUri: requestUriFor(requestId), expiresIn: REQUEST_URI_LIFETIME_SECONDS };
  }

  /** RFC 9126 §4: the pending request a `request_uri` names, for this client; anything else is refused alike. */
  async pending(requestUri: string, clientId: string): Promise<AuthorizationRequest> {
    const requestId = requestIdFromUri(requestUri);
    if (requestId === undefined) throw new InvalidRequestError('request_uri: the request_uri is unknown');
    const { state } = await aggregateStream(this.store, parStreamName(requestId), authorizationRequestDecider);
    return asProtocolErrors(async () => pendingAuthorizationRequest(state, { clientId, now: this.clock.now() }));
  }

  /**
   * Approval (decision 0008). Three appends in this order:
   * 1. `AuthorizationRequestApproved` on `par-<id>` at the revision read — the single-use commit point; it fixes mission and grant ids;
   * 2. `AuthorizationCodeIssued` on a new `grant-<id>` (only the code's hash, its PKCE challenge, redirect and DPoP binding);
   * 3. `MissionCreated` (`active`, version 1) on a new `mission-<id>`, hash-chained.
   * A code is redeemable only while its mission is derivable, so a crash after 1 or 2 leaves no usable code,
   * and a mission exists only once its code is stored: no active mission without an issued code.
   */
  async approve(request: AuthorizationRequest, approvedBy: Actor): Promise<Redirect> {
    const now = this.clock.now();
    const missionExpiresAt = new Date(request.intent.expires_at);
    // DESIGN 2.3: the mission must still have a lifetime when it is created.
    if (missionExpiresAt.getTime() <= now.getTime()) throw new InvalidRequestError('mission_intent.intent.expires_at has passed');
    const missionId = missionIdFromBytes(randomBytes(16));
    const grantId = grantIdFromBytes(randomBytes(16));
    const code = grantTokenFromBytes(grantId, randomBytes(32));
    const context = this.context(approvedBy, `authorize:${request.requestId}`, now);
    const issuer = this.oauth.issuer;
    await asProtocolErrors(async () => {
      await handleCommand(this.store, parStreamName(request.requestId), authorizationRequestDecider,
        { type: 'approve', clientId: request.clientId, missionId, grantId, approvedBy, now }, context);
      await handleCommand(this.store, grantStreamName(grantId), grantDecider, {
        type: 'issueCode', grantId, missionId, clientId: request.clientId, codeHash: grantTokenHash(code), redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge, requestId: request.requestId, now,
        expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000),
        ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
      }, context);
      await handleCommand(this.store, missionStreamName(missionId), missionDecider, {
        type: 'create', missionId, issuer, clientId: request.clientId, authoritySet: request.authoritySet,
        authorityHash: authorityHash(issuer, request.authoritySet), intent: request.intent, expiresAt: missionExpiresAt, approvedBy, now,
      }, context, { hashChain: true });
    });
    return { location: redirectWith(request.redirectUri, { code, ...(request.state !== undefined ? { state: request.state } : {}), iss: issuer }) };
  }

  /** RFC 6749 §4.1.2.1: the person declined; the request is used up and the client learns `access_denied`. */
  async decline(request: AuthorizationRequest, actor: Actor, reason: string): Promise<Redirect> {
    const now = this.clock.now();
    await asProtocolErrors(() => handleCommand(this.store, parStreamName(request.requestId), authorizationRequestDecider,
      { type: 'decline', clientId: request.clientId, actor, reason, now }, this.context(actor, `authorize:${request.requestId}`, now)));
    return {
      location: redirectWith(request.redirectUri, {
        error: 'access_denied', error_description: 'the request was declined',
        ...(request.state !== undefined ? { state: request.state } : {}), iss: this.oauth.issuer,
      }),
    };
  }

  private context(actor: Actor, causationId: string, now: Date): CommandContext {
    return { correlationId: randomUUID(), causationId, actor, now };
  }
}

// RFC 6749 §4.1.2 / RFC 9207 §2: response parameters are added to the registered redirect URI's query, keeping its own.
export function redirectWith(redirectUri: string, parameters: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}
