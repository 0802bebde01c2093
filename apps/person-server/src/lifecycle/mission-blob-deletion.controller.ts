import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { requestFacts } from '../http/request-facts.js';
import { Caller, SignedRequestGuard } from '../auth/signed-request.guard.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import { lifecycleProblem } from '../errors/lifecycle-problems.js';
import { MissionBlobDeletion } from './mission-blob-deletion.service.js';

/**
 * `POST /mission/blob-deletions` `{mission_s256, request_id, purpose}` — an administrator deletes the
 * body of a terminated mission (spec 3 rule 5; README.md in this folder). Signed like every PS request
 * (DESIGN 3.2), `Cache-Control: no-store`, errors as problem+json (spec 7).
 */
@Controller('mission')
@UseGuards(SignedRequestGuard)
export class MissionBlobDeletionController {
  constructor(private readonly deletion: MissionBlobDeletion) {}

  @Post('blob-deletions')
  async deleteBlob(@Caller() caller: AuthenticatedCaller, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<unknown> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      const answer = await this.deletion.delete(caller, strictJsonBody(request), requestFacts(request, response));
      response.status(200);
      return answer;
    } catch (error) {
      throw lifecycleProblem(error);
    }
  }
}
