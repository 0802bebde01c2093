import { Controller, HttpCode, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { ListPendingProposals } from '../use-cases/list-pending-proposals/list-pending-proposals.handler.js';
import { PendingProposalsOperation } from './openapi/operations.js';

/** The path of the pending-proposals listing, advertised as `pending_proposals_endpoint` (ADR 0034). */
export const PENDING_PROPOSALS_PATH = 'proposals/pending';

/**
 * `POST /proposals/pending` `{max_results?, cursor?}` (ADR 0034): a person's (or its tenant administrator's)
 * page of proposals waiting for a decision. Signed like every PS request (DESIGN 3.2), a POST so the
 * signature covers the body's Content-Digest, `Cache-Control: no-store`, errors as problem+json (spec 7).
 */
@Controller('proposals')
@UseGuards(SignedRequestGuard)
@UseFilters(ProblemFilter)
export class ProposalsController {
  constructor(private readonly queries: QueryBus) {}

  @Post('pending')
  @HttpCode(200)
  @PendingProposalsOperation()
  async pending(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    return this.queries.execute(new ListPendingProposals(caller, strictJsonBody(request)));
  }
}
