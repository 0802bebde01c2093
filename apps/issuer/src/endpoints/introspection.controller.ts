import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response } from 'fastify';
import type { RawBodyRequest as Request } from '@mission/platform';
import { formParameters } from '../http/form-parameters.js';
import { formOf } from '../http/oauth-form.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { IntrospectToken } from '../use-cases/introspect-token/introspect-token.handler.js';
import { IntrospectionForm } from './mission-forms.js';
import { IntrospectOperation } from './openapi/operations.js';

/** RFC 7662 introspection with the `mission` member (DESIGN 2.1); the answer is IntrospectToken's. */
@Controller()
export class IntrospectionController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly queries: QueryBus,
  ) {}

  @Post('introspect')
  @HttpCode(200)
  @IntrospectOperation()
  async introspect(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    // RFC 7662 §2.1: the caller is authenticated.
    const { client } = await this.oauth.authenticate(form, request);
    const { token } = formParameters(IntrospectionForm, form);
    response.header('Cache-Control', 'no-store');
    return this.queries.execute(new IntrospectToken(client, token!));
  }
}
