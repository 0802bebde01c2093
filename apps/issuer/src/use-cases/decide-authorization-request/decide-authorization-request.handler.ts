import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '@mission/event-store';
import { handleCommand, type RequestTrace } from '@mission/es-kit';
import {
  authorityHash, authorizationRequestDecider, grantDecider, grantIdFromBytes, grantStreamName, grantTokenFromBytes, grantTokenHash,
  missionDecider, missionIdFromBytes, missionStreamName, parStreamName, type Actor, type AuthorizationRequest,
} from '@mission/issuer-domain';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, secureRandomBytes } from '@mission/platform';
import { asProtocolErrors } from '../../errors/domain-refusals.js';
import { CLOCK } from '../../oauth/clock.js';
import { IssuerOAuth } from '../../oauth/issuer-oauth.service.js';
import { commandContext, redirectWith, type Redirect } from '../shared/command-context.js';

/** RFC 6749 §4.1.2: a code lives briefly (a minute, as recommended maximum is 10). */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;

/** `/authorize`: the client's policy or a person approves or declines a pending request. */
export class DecideAuthorizationRequest extends Command<Redirect> {
  constructor(
    readonly request: AuthorizationRequest,
    readonly actor: Actor,
    readonly decision: { readonly approve: true } | { readonly approve: false; readonly reason: string },
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

@CommandHandler(DecideAuthorizationRequest)
export class DecideAuthorizationRequestHandler implements ICommandHandler<DecideAuthorizationRequest> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly oauth: IssuerOAuth,
  ) {}

  execute({ request, actor, decision, trace }: DecideAuthorizationRequest): Promise<Redirect> {
    return decision.approve ? this.approve(request, actor, trace) : this.decline(request, actor, decision.reason, trace);
  }

  /**
   * Approval (decision 0008). Three appends in this order:
   * 1. `AuthorizationRequestApproved` on `par-<id>` at the revision read — the single-use commit point; it fixes mission and grant ids;
   * 2. `AuthorizationCodeIssued` on a new `grant-<id>` (only the code's hash, its PKCE challenge, redirect and DPoP binding);
   * 3. `MissionCreated` (`active`, version 1) on a new `mission-<id>`, hash-chained.
   * A code is redeemable only while its mission is derivable, so a crash after 1 or 2 leaves no usable code,
   * and a mission exists only once its code is stored: no active mission without an issued code.
   */
  private async approve(request: AuthorizationRequest, approvedBy: Actor, trace: RequestTrace | undefined): Promise<Redirect> {
    const now = this.clock.now();
    const missionExpiresAt = new Date(request.intent.expires_at);
    // DESIGN 2.3: the mission must still have a lifetime when it is created.
    if (missionExpiresAt.getTime() <= now.getTime()) throw new InvalidRequestError('mission_intent.intent.expires_at has passed');
    const missionId = missionIdFromBytes(secureRandomBytes(16));
    const grantId = grantIdFromBytes(secureRandomBytes(16));
    const code = grantTokenFromBytes(grantId, secureRandomBytes(32));
    const context = commandContext(approvedBy, `authorize:${request.requestId}`, now, trace);
    const issuer = this.oauth.issuer;
    await asProtocolErrors(async () => {
      await handleCommand(this.store, parStreamName(request.requestId), authorizationRequestDecider,
        { type: 'ApproveAuthorizationRequest', clientId: request.clientId, missionId, grantId, approvedBy, now }, context);
      await handleCommand(this.store, grantStreamName(grantId), grantDecider, {
        type: 'IssueAuthorizationCode', grantId, missionId, clientId: request.clientId, codeHash: grantTokenHash(code), redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge, requestId: request.requestId, now,
        expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000),
        ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
      }, context);
      await handleCommand(this.store, missionStreamName(missionId), missionDecider, {
        type: 'CreateMission', missionId, issuer, clientId: request.clientId, authoritySet: request.authoritySet,
        authorityHash: authorityHash(issuer, request.authoritySet), intent: request.intent, expiresAt: missionExpiresAt, approvedBy, now,
      }, context, { hashChain: true });
    });
    return { location: redirectWith(request.redirectUri, { code, ...(request.state !== undefined ? { state: request.state } : {}), iss: issuer }) };
  }

  /** RFC 6749 §4.1.2.1: the person declined; the request is used up and the client learns `access_denied`. */
  private async decline(request: AuthorizationRequest, actor: Actor, reason: string, trace: RequestTrace | undefined): Promise<Redirect> {
    const now = this.clock.now();
    await asProtocolErrors(() => handleCommand(this.store, parStreamName(request.requestId), authorizationRequestDecider,
      { type: 'DeclineAuthorizationRequest', clientId: request.clientId, actor, reason, now }, commandContext(actor, `authorize:${request.requestId}`, now, trace)));
    return {
      location: redirectWith(request.redirectUri, {
        error: 'access_denied', error_description: 'the request was declined',
        ...(request.state !== undefined ? { state: request.state } : {}), iss: this.oauth.issuer,
      }),
    };
  }
}
