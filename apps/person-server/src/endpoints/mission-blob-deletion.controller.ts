import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply as Response, FastifyRequest as Request } from 'fastify';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ProblemFilter } from '../errors/problem.filter.js';
import { requestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { DeleteMissionBody } from '../use-cases/delete-mission-body/delete-mission-body.handler.js';
import { BlobDeletionOperation } from './openapi/operations.js';

/**
 * `POST /mission/blob-deletions` `{mission_s256, request_id, purpose}` — an administrator deletes the
 * body of a terminated mission (spec 3 rule 5; lifecycle/README.md). Signed like every PS request
 * (DESIGN 3.2), `Cache-Control: no-store`, errors as problem+json (spec 7).
 */
@Controller('mission')
@UseGuards(SignedRequestGuard)
@UseFilters(ProblemFilter)
export class MissionBlobDeletionController {
  constructor(private readonly commands: CommandBus) {}

  @Post('blob-deletions')
  @BlobDeletionOperation()
  async deleteBlob(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.header('Cache-Control', 'no-store');
    const answer = await this.commands.execute(new DeleteMissionBody(caller, strictJsonBody(request), requestFacts(request)));
    response.status(200);
    return answer;
  }
}
