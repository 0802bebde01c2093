import { Controller, HttpCode, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { ListMissions } from '../use-cases/list-missions/list-missions.handler.js';

/** The path of the missions listing, advertised as `missions_endpoint` (ADR 0040). */
export const MISSIONS_LIST_PATH = 'missions/list';

/**
 * `POST /missions/list` `{max_results?, cursor?, status?}` (ADR 0040): a person's missions, or every mission of an
 * administrator's tenant, newest first. Signed like every PS request (DESIGN 3.2; a POST so the signature covers
 * the body's Content-Digest), `Cache-Control: no-store`, errors as problem+json (spec 7).
 */
@Controller('missions')
@UseGuards(SignedRequestGuard)
@UseFilters(ProblemFilter)
export class MissionsListController {
  constructor(private readonly queries: QueryBus) {}

  @Post('list')
  @HttpCode(200)
  async list(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    return this.queries.execute(new ListMissions(caller, strictJsonBody(request)));
  }
}
