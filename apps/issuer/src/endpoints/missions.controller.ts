import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import type { LifecycleOperation } from '@mission/issuer-domain';
import { formParameters } from '../http/form-parameters.js';
import { formOf } from '../http/oauth-form.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { ChangeMissionLifecycle } from '../use-cases/change-mission-lifecycle/change-mission-lifecycle.handler.js';
import { MISSION_STATUS_MEDIA_TYPE } from '../use-cases/read-mission-status/mission-status-response.js';
import { ReadMissionStatus } from '../use-cases/read-mission-status/read-mission-status.handler.js';
import { LifecycleForm, StatusForm } from './mission-forms.js';

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
  async lifecycle(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const parameters = formParameters(LifecycleForm, form);
    const expectedVersion = parameters.expected_version === undefined ? undefined : Number(parameters.expected_version);
    const answer = await this.commands.execute(
      new ChangeMissionLifecycle(client, parameters.mission_id, parameters.operation as LifecycleOperation, parameters.reason!, expectedVersion, parameters.nonce),
    );
    response.setHeader('Cache-Control', 'no-store');
    return { ...answer };
  }

  /** A signed answer, no fresher than `mission_max_stale_seconds`. */
  @Post('status')
  @HttpCode(200)
  async status(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission_id: missionId, audience, nonce } = formParameters(StatusForm, form);
    const jwt = await this.queries.execute(new ReadMissionStatus(client, missionId, audience, nonce));
    response.status(200).setHeader('Content-Type', MISSION_STATUS_MEDIA_TYPE).setHeader('Cache-Control', 'no-store').send(jwt);
  }
}
