import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response } from 'fastify';
import type { RawBodyRequest as Request } from '@mission/platform';
import { ProtocolError } from '@mission/issuer-oauth';
import { checkedFormParameters, formParameters } from '../http/form-parameters.js';
import { formOf } from '../http/oauth-form.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { ReadChildEvidence } from '../use-cases/read-child-evidence/read-child-evidence.handler.js';
import { ReadMissionTree } from '../use-cases/read-mission-tree/read-mission-tree.handler.js';
import { EvidenceForm, MissionForm, TreeForm } from './mission-forms.js';
import { EvidenceOperation, TreeOperation } from './openapi/operations.js';

/**
 * DESIGN 2.1 audit endpoints (permission `audit`; the caller's own missions and their descendants, or
 * any with `admin`; everything else the identical `404 not_found`). Spec 5 rule 7: evidence and
 * lineage go only to authorized audit consumers, never cached.
 */
@Controller('missions')
export class MissionAuditController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly queries: QueryBus,
  ) {}

  /** `/missions/tree`: the delegation tree under `mission_id` (ReadMissionTree). */
  @Post('tree')
  @HttpCode(200)
  @TreeOperation()
  async tree(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission_id: missionId } = formParameters(TreeForm, form);
    const tree = await this.queries.execute(new ReadMissionTree(client, missionId));
    response.header('Cache-Control', 'no-store');
    return tree;
  }

  /** `/missions/evidence`: the spec 2.6 Child Evidence under `mission_id`, a page at a time (ReadChildEvidence). */
  @Post('evidence')
  @HttpCode(200)
  @EvidenceOperation()
  async evidence(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission_id: missionId } = formParameters(MissionForm, form);
    // The mission is checked first (404 alike for unknown and foreign), the page parameters after it.
    const paging = checkedFormParameters(EvidenceForm, form);
    const page = await this.queries.execute(new ReadChildEvidence(client, missionId, paging instanceof ProtocolError ? paging : {
      ...(paging.max_results !== undefined ? { maxResults: Number(paging.max_results) } : {}),
      ...(paging.cursor !== undefined ? { cursor: paging.cursor } : {}),
    }));
    response.header('Cache-Control', 'no-store');
    return page;
  }
}
