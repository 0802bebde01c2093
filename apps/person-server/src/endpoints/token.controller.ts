import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { requestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { AuthTokenOperation } from './openapi/operations.js';
import { IssueAuthToken } from '../use-cases/issue-auth-token/issue-auth-token.handler.js';

/**
 * `POST /token` (DESIGN 3.1): signed by the agent (spec 5.1), JSON body
 * `{"resource_token", "subagent_token"?, "upstream_token"?}` → `200 {"auth_token", "expires_in"}`.
 * Errors are problem+json; a terminated mission is `403 mission_terminated` (spec 3 rule 3).
 */
@Controller('token')
@UseGuards(SignedRequestGuard)
@UseFilters(ProblemFilter)
export class TokenController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @AuthTokenOperation()
  async token(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    // The request facts are for the security audit of probes (spec 5.9, 6): never the body or headers.
    const issued = await this.commands.execute(new IssueAuthToken(caller, strictJsonBody(request), requestFacts(request)));
    response.status(200);
    return { ...issued, token_type: 'aa-auth+jwt' };
  }
}
