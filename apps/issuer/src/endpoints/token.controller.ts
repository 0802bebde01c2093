import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply as Response } from 'fastify';
import { requestTraceOf, type RawBodyRequest as Request } from '@mission/platform';
import { formOf } from '../http/oauth-form.js';
import { formParameters } from '../http/form-parameters.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import type { TokenResponse } from '../tokens/token-issuance.js';
import { RedeemAuthorizationCode } from '../use-cases/redeem-authorization-code/redeem-authorization-code.handler.js';
import { RedeemChildGrant } from '../use-cases/redeem-child-grant/redeem-child-grant.handler.js';
import { RefreshTokens } from '../use-cases/refresh-tokens/refresh-tokens.handler.js';
import { RevokeToken } from '../use-cases/revoke-token/revoke-token.handler.js';
import { RevokeOperation, TokenOperation } from './openapi/operations.js';
import {
  AuthorizationCodeForm, CHILD_CREATION_GRANT_TYPE, childGrantTokenOf, grantTypeOf, refuseAccessToken, RefreshTokenForm, RevocationForm,
} from './token-parameters.js';

/** RFC 6749 §5.1: token responses are never cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** `POST /token` (authorization_code, refresh_token, mission-child-creation) and `POST /revoke` (RFC 7009), DESIGN 2.1. */
@Controller()
export class TokenController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly commands: CommandBus,
  ) {}

  @Post('token')
  @HttpCode(200)
  @TokenOperation()
  async token(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<TokenResponse> {
    this.oauth.offerDpopNonce(response);
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const grantType = grantTypeOf(form, client);
    if (grantType === 'authorization_code') {
      const { code, redirect_uri: redirectUri, code_verifier: codeVerifier } = formParameters(AuthorizationCodeForm, form);
      // RFC 9449 §5 / DESIGN 2.2: every token is DPoP-bound, so the proof is required (checked last among syntax: it burns its jti).
      const proof = await this.oauth.verifyDpop(request, '/token');
      response.headers(NO_STORE);
      return this.commands.execute(new RedeemAuthorizationCode(client, code!, redirectUri!, codeVerifier, proof, requestTraceOf(request)));
    }
    if (grantType === CHILD_CREATION_GRANT_TYPE) {
      // DESIGN 2.4: the child actor redeems the request_uri with its own key.
      const grantToken = childGrantTokenOf(form);
      const proof = await this.oauth.verifyDpop(request, '/token');
      response.headers(NO_STORE);
      return this.commands.execute(new RedeemChildGrant(client, grantToken, proof, requestTraceOf(request)));
    }
    const { refresh_token: refreshToken } = formParameters(RefreshTokenForm, form);
    const proof = await this.oauth.verifyDpop(request, '/token');
    response.headers(NO_STORE);
    return this.commands.execute(new RefreshTokens(client, refreshToken!, proof, requestTraceOf(request)));
  }

  @Post('revoke')
  @HttpCode(200)
  @RevokeOperation()
  async revoke(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, never>> {
    this.oauth.offerDpopNonce(response);
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { token, token_type_hint: hint } = formParameters(RevocationForm, form);
    refuseAccessToken(token!, hint);
    await this.commands.execute(new RevokeToken(client, token!, requestTraceOf(request)));
    response.headers(NO_STORE);
    return {};
  }
}
