import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { requestTraceOf, SERVICE_CONFIG, type RawBodyRequest as Request } from '@mission/platform';
import type { FastifyReply as Response } from 'fastify';
import { assertCodeChallenge, type Clock } from '@mission/issuer-oauth';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import {
  authoritySetOf, codeBinding, missionIntentOf, optionalDpopJkt, optionalState, refuseRequestUri,
  registeredRedirectUri, requireAuthorizationCodeClient, requireMatchingClientId, requireResponseTypeCode,
} from './par-parameters.js';
import { ParOperation } from './openapi/operations.js';
import { CreateChildMission } from '../use-cases/create-child-mission/child-creation-request.js';
import { PushAuthorizationRequest } from '../use-cases/push-authorization-request/push-authorization-request.handler.js';
import { cascadeModeOf, childActorOf, claimedParentOf, isChildCreationRequest, parentTokenOf } from './child-creation-parameters.js';
import type { ClientRegistration, IssuerConfig } from '../config/issuer-config.js';
import type { OAuthForm } from '../http/oauth-form.js';

type ParResponse = { request_uri: string; expires_in: number };

/** RFC 9126 pushed authorization requests: root missions (DESIGN 2.1, 2.3) and Child Mission creation (spec child-mission-delegation 4.1, DESIGN 2.4). */
@Controller()
export class ParController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
  ) {}

  @Post('par')
  @HttpCode(201)
  @ParOperation()
  async par(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<ParResponse> {
    this.oauth.offerDpopNonce(response);
    const form = formOf(request);
    // Spec 4.1 step 1: authenticate the client submitting the request.
    const { client } = await this.oauth.authenticate(form, request);
    refuseRequestUri(form);
    if (isChildCreationRequest(form)) return this.createChild(form, client, request, response);
    requireResponseTypeCode(form);
    requireMatchingClientId(form, client);
    requireAuthorizationCodeClient(client);
    const redirectUri = registeredRedirectUri(form, client);
    const codeChallenge = form.optional('code_challenge', 128);
    assertCodeChallenge(codeChallenge, form.optional('code_challenge_method', 16));
    const intent = missionIntentOf(form, this.clock.now());
    const authoritySet = authoritySetOf(form);
    const state = optionalState(form);
    const dpopJkt = optionalDpopJkt(form);
    // RFC 9449 §10.1: a DPoP proof at PAR binds the code to its key (checked last: it burns the proof's jti).
    const proof = request.raw.headersDistinct['dpop'] !== undefined ? await this.oauth.verifyDpop(request, '/par') : undefined;
    const binding = codeBinding(dpopJkt, proof);
    const pushed = await this.commands.execute(new PushAuthorizationRequest({
      clientId: client.client_id, redirectUri, codeChallenge: codeChallenge!, codeChallengeMethod: 'S256', authoritySet, intent,
      ...(state !== undefined ? { state } : {}),
      ...(binding !== undefined ? { dpopJkt: binding } : {}),
    }, requestTraceOf(request)));
    response.header('Cache-Control', 'no-store');
    return { request_uri: pushed.requestUri, expires_in: pushed.expiresIn };
  }

  /**
   * Spec 4.1 Child Mission creation on the back channel: syntax first (every parameter is required, DESIGN 2.4),
   * then the parent grant's DPoP proof (`ath` over parent_token; it burns the proof's jti), then steps 2–11.
   */
  private async createChild(form: OAuthForm, client: ClientRegistration, request: Request, response: Response): Promise<ParResponse> {
    requireMatchingClientId(form, client);
    const claimedParent = claimedParentOf(form);
    const parentToken = parentTokenOf(form);
    const childActor = childActorOf(form);
    const intent = missionIntentOf(form, this.clock.now());
    const authoritySet = authoritySetOf(form);
    const cascadeMode = cascadeModeOf(form, this.config.child_missions);
    // DESIGN 2.2, 2.4: the parent grant comes with a proof of the key it is bound to (htm POST, htu /par, ath = hash of parent_token).
    const proof = await this.oauth.verifyDpop(request, '/par', parentToken);
    const created = await this.commands.execute(new CreateChildMission({ client, claimedParent, parentToken, childActor, intent, authoritySet, cascadeMode, proof, trace: requestTraceOf(request) }));
    response.header('Cache-Control', 'no-store');
    return { request_uri: created.requestUri, expires_in: created.expiresIn };
  }
}
