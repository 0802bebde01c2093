import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply as Response } from 'fastify';
import { requestTraceOf, type RawBodyRequest as Request } from '@mission/platform';
import type { LifecycleOperation } from '@mission/issuer-domain';
import { ProtocolError } from '@mission/issuer-oauth';
import { checkedFormParameters, formParameters } from '../http/form-parameters.js';
import { formOf } from '../http/oauth-form.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { ChangeMissionLifecycle, type LifecycleRequest } from '../use-cases/change-mission-lifecycle/change-mission-lifecycle.handler.js';
import { MISSION_STATUS_MEDIA_TYPE } from '../use-cases/read-mission-status/mission-status-response.js';
import { ReadMissionStatus } from '../use-cases/read-mission-status/read-mission-status.handler.js';
import { LifecycleForm, MissionForm, LifecycleReasonForm, StatusForm } from './mission-forms.js';
import { MissionLifecycleOperation, StatusOperation } from './openapi/operations.js';

/** DESIGN 2.1 `/missions/lifecycle` and `/missions/status`. */
@Controller('missions')
export class MissionsController {
  constructor(
    private readonly oauth: IssuerOAuth,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** Revoke, suspend, resume, complete with compare-and-set and idempotency. */
  @Post('lifecycle')
  @HttpCode(200)
  @MissionLifecycleOperation()
  async lifecycle(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission_id: missionId } = formParameters(MissionForm, form);
    // DESIGN 2.1: the named mission is checked first (unknown, malformed and foreign all 404 alike), so a
    // refusal of the request's shape is carried to the handler, which raises it after that check.
    const answer = await this.commands.execute(
      new ChangeMissionLifecycle(client, missionId, lifecycleRequest(checkedFormParameters(LifecycleForm, form)), checkedFormParameters(LifecycleReasonForm, form), requestTraceOf(request)),
    );
    response.header('Cache-Control', 'no-store');
    return { ...answer };
  }

  /** A signed answer, no fresher than `mission_max_stale_seconds`. */
  @Post('status')
  @HttpCode(200)
  @StatusOperation()
  async status(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission_id: missionId, audience, nonce } = formParameters(StatusForm, form);
    const jwt = await this.queries.execute(new ReadMissionStatus(client, missionId, audience, nonce));
    response.status(200).headers({ 'Content-Type': MISSION_STATUS_MEDIA_TYPE, 'Cache-Control': 'no-store' }).send(jwt);
  }
}

function lifecycleRequest(parameters: LifecycleForm | ProtocolError): LifecycleRequest | ProtocolError {
  if (parameters instanceof ProtocolError) return parameters;
  return {
    operation: parameters.operation as LifecycleOperation,
    ...(parameters.expected_version !== undefined ? { expectedVersion: Number(parameters.expected_version) } : {}),
    ...(parameters.nonce !== undefined ? { nonce: parameters.nonce } : {}),
  };
}
