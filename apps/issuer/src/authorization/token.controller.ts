import { Controller, HttpCode, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { formOf } from '../http/oauth-form.js';
import { DpopNonceInterceptor } from '../oauth/dpop-nonce.interceptor.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { CHILD_CREATION_GRANT_TYPE, grantTypeOf, refuseAccessToken } from './token-steps.js';
import { childGrantTokenOf } from '../child-creation/child-creation-steps.js';
import { TokenService, type TokenResponse } from './token.service.js';

/** RFC 6749 §5.1: token responses are never cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** `POST /token` (authorization_code, refresh_token, mission-child-creation) and `POST /revoke` (RFC 7009), DESIGN 2.1. */
@Controller()
@UseInterceptors(DpopNonceInterceptor)
export class TokenController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly tokens: TokenService,
  ) {}

  @Post('token')
  @HttpCode(200)
  async token(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<TokenResponse> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const grantType = grantTypeOf(form, client);
    if (grantType === 'authorization_code') {
      const code = form.required('code', 256);
      const redirectUri = form.required('redirect_uri', 2048);
      const codeVerifier = form.optional('code_verifier', 256);
      // RFC 9449 §5 / DESIGN 2.2: every token is DPoP-bound, so the proof is required (checked last among syntax: it burns its jti).
      const proof = await this.oauth.verifyDpop(request, '/token');
      response.set(NO_STORE);
      return this.tokens.redeemCode(client, code, redirectUri, codeVerifier, proof);
    }
    if (grantType === CHILD_CREATION_GRANT_TYPE) {
      // DESIGN 2.4: the child actor redeems the request_uri with its own key.
      const grantToken = childGrantTokenOf(form);
      const proof = await this.oauth.verifyDpop(request, '/token');
      response.set(NO_STORE);
      return this.tokens.redeemChildGrant(client, grantToken, proof);
    }
    const refreshToken = form.required('refresh_token', 256);
    const proof = await this.oauth.verifyDpop(request, '/token');
    response.set(NO_STORE);
    return this.tokens.refresh(client, refreshToken, proof);
  }

  @Post('revoke')
  @HttpCode(200)
  async revoke(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, never>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const token = form.required('token', 4096);
    refuseAccessToken(token, form.optional('token_type_hint', 64));
    await this.tokens.revoke(client, token);
    response.set(NO_STORE);
    return {};
  }
}
