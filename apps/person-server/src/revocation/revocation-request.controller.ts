import { Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { requestFacts } from '../http/request-facts.js';
import { strictJsonBody } from '../http/strict-json-body.js';
import { toProblem } from '../errors/mission-problems.js';
import { RevocationRequests } from './revocation-requests.service.js';
import { AuthenticatedRevoker, RevokerGuard } from '../auth/revoker.guard.js';
import type { Revoker } from '../auth/revoker.js';

/** The PS's revocation endpoint path, advertised as `revocation_endpoint` in its metadata (DESIGN 3.1). */
export const REVOCATION_PATH = 'revoke';

/**
 * `POST /revoke` (DESIGN 3.1, ADR 0016): signed by the Auth Token's holder (an agent) or its audience (a
 * resource), JSON body `{"iss", "jti"}` → `200` with an empty body, the same for every well-formed request.
 * A malformed body is `400 invalid_request` (problem+json).
 */
@Controller(REVOCATION_PATH)
@UseGuards(RevokerGuard)
export class RevocationRequestController {
  constructor(private readonly requests: RevocationRequests) {}

  @Post()
  @HttpCode(200)
  async revoke(@AuthenticatedRevoker() revoker: Revoker, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      await this.requests.revoke(revoker, strictJsonBody(request), requestFacts(request, response));
    } catch (error) {
      throw toProblem(error);
    }
  }
}
