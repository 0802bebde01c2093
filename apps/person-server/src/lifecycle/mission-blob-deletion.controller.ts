import { Controller, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parseStrictJson, StrictJsonError } from '@mission/strict-json';
import type { AuthenticatedCaller } from '../auth/authenticated-caller.js';
import { InvalidManagementRequestError } from '../http/problem-errors.js';
import { Caller, SignedRequestGuard } from '../http/signed-request.guard.js';
import type { RequestFacts } from '../missions/mission-management.service.js';
import { lifecycleProblem } from './lifecycle-problems.js';
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
      const answer = await this.deletion.delete(caller, strictJsonBody(request), facts(request, response));
      response.status(200);
      return answer;
    } catch (error) {
      throw lifecycleProblem(error);
    }
  }
}

/** Spec 4 / DESIGN 3.3: the exact received bytes parsed strictly — a duplicate member name is invalid_request. */
function strictJsonBody(request: Request): unknown {
  const raw = (request as Request & { rawBody?: Buffer }).rawBody;
  if (raw === undefined || raw.length === 0) throw new InvalidManagementRequestError('a JSON body is required');
  try {
    return parseStrictJson(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidManagementRequestError('the body must be JSON without duplicate member names');
    throw error;
  }
}

function facts(request: Request, response: Response): RequestFacts {
  const requestId = response.locals?.['requestId'];
  const source = request.ip ?? request.socket?.remoteAddress;
  return { ...(source !== undefined ? { source } : {}), method: request.method, path: request.path, ...(typeof requestId === 'string' ? { requestId } : {}) };
}
