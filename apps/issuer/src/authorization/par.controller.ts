import { Controller, HttpCode, Inject, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { assertCodeChallenge, type Clock } from '@mission/issuer-oauth';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { DpopNonceInterceptor } from '../oauth/dpop-nonce.interceptor.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { AuthorizationRequests } from './authorization-requests.service.js';
import {
  authoritySetOf, codeBinding, missionIntentOf, optionalDpopJkt, optionalState, refuseChildParameters, refuseRequestUri,
  registeredRedirectUri, requireAuthorizationCodeClient, requireMatchingClientId, requireResponseTypeCode,
} from './par-steps.js';

/** RFC 9126 pushed authorization requests for root missions (DESIGN 2.1, 2.3). */
@Controller()
@UseInterceptors(DpopNonceInterceptor)
export class ParController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly requests: AuthorizationRequests,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post('par')
  @HttpCode(201)
  async par(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<{ request_uri: string; expires_in: number }> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    refuseRequestUri(form);
    refuseChildParameters(form);
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
    const proof = request.headersDistinct['dpop'] !== undefined ? await this.oauth.verifyDpop(request, '/par') : undefined;
    const binding = codeBinding(dpopJkt, proof);
    const pushed = await this.requests.push({
      clientId: client.client_id, redirectUri, codeChallenge: codeChallenge!, codeChallengeMethod: 'S256', authoritySet, intent,
      ...(state !== undefined ? { state } : {}),
      ...(binding !== undefined ? { dpopJkt: binding } : {}),
    });
    response.setHeader('Cache-Control', 'no-store');
    return { request_uri: pushed.requestUri, expires_in: pushed.expiresIn };
  }
}
