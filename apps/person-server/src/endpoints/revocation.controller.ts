import { Controller, HttpCode, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { AuthenticatedRevoker, RevokerGuard } from '../auth/revoker.guard.js';
import type { Revoker } from '../auth/revoker.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { requestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import { RevocationOperation } from './openapi/operations.js';
import { RevokeAuthToken } from '../use-cases/revoke-auth-token/revoke-auth-token.handler.js';

/** The PS's revocation endpoint path, advertised as `revocation_endpoint` in its metadata (DESIGN 3.1). */
export const REVOCATION_PATH = 'revoke';

/**
 * `POST /revoke` (DESIGN 3.1, ADR 0016): signed by the Auth Token's holder (an agent) or its audience (a
 * resource), JSON body `{"iss", "jti"}` → `200` with an empty body, the same for every well-formed request.
 * A malformed body is `400 invalid_request` (problem+json).
 */
@Controller(REVOCATION_PATH)
@UseGuards(RevokerGuard)
@UseFilters(ProblemFilter)
export class RevocationController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(200)
  @RevocationOperation()
  async revoke(@AuthenticatedRevoker() revoker: Revoker, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    response.header('Cache-Control', 'no-store');
    await this.commands.execute(new RevokeAuthToken(revoker, strictJsonBody(request), requestFacts(request)));
  }
}
