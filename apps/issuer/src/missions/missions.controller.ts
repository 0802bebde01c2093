import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { handleCommand } from '@mission/es-kit';
import {
  isLifecycleOperation, lifecycleResult, missionDecider, missionStatusView, missionStreamName, type LifecycleOperation,
} from '@mission/issuer-domain';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, SERVICE_CONFIG, SigningKeys } from '@mission/platform';
import type { IssuerConfig } from '../config/issuer-config.js';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { lifecycleProtocolError } from './lifecycle-errors.js';
import { loadAccessibleMission } from './mission-access.js';
import { MISSION_STATUS_MEDIA_TYPE, signMissionStatusResponse } from './mission-status-response.js';

const EXPECTED_VERSION = /^[1-9][0-9]{0,9}$/;

@Controller('missions')
export class MissionsController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: IssuerConfig,
    private readonly oauth: IssuerOAuth,
    private readonly keys: SigningKeys,
  ) {}

  /** DESIGN 2.1 `/missions/lifecycle`: revoke, suspend, resume, complete with compare-and-set and idempotency. */
  @Post('lifecycle')
  @HttpCode(200)
  async lifecycle(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const mission = await loadAccessibleMission(this.store, form.optional('mission_id', 64), client, 'lifecycle');
    const operation = form.required('operation', 16);
    if (!isLifecycleOperation(operation)) throw new InvalidRequestError('operation must be one of revoke, suspend, resume, complete');
    const expectedVersion = form.optional('expected_version', 10);
    if (expectedVersion !== undefined && !EXPECTED_VERSION.test(expectedVersion)) throw new InvalidRequestError('expected_version must be a positive integer');
    const nonce = form.optional('nonce', 256);
    const now = this.clock.now();
    const actor = { id: client.client_id, role: 'client' };
    const command = {
      type: operation as LifecycleOperation,
      actor,
      reason: form.required('reason', 4096),
      now,
      ...(expectedVersion !== undefined ? { expectedVersion: Number(expectedVersion) } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    };
    try {
      const result = await handleCommand(
        this.store, missionStreamName(mission.missionId), missionDecider, command,
        { correlationId: randomUUID(), causationId: `lifecycle:${nonce ?? randomUUID()}`, actor, now },
        { hashChain: true },
      );
      const answer = lifecycleResult(result.state, command);
      response.setHeader('Cache-Control', 'no-store');
      return { mission_id: mission.missionId, state: answer.state, version: answer.version };
    } catch (error) {
      throw lifecycleProtocolError(error);
    }
  }

  /** DESIGN 2.1 `/missions/status`: a signed answer, no fresher than `mission_max_stale_seconds`. */
  @Post('status')
  @HttpCode(200)
  async status(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const mission = await loadAccessibleMission(this.store, form.optional('mission_id', 64), client, 'status');
    const nonce = form.optional('nonce', 256);
    const jwt = await signMissionStatusResponse(
      {
        issuer: this.oauth.issuer,
        audience: form.optional('audience', 2048) ?? client.client_id,
        mission: missionStatusView(mission, this.clock.now()),
        now: this.clock.now(),
        maxStaleSeconds: this.config.mission_max_stale_seconds,
        ...(nonce !== undefined ? { nonce } : {}),
      },
      this.keys,
    );
    response.status(200).setHeader('Content-Type', MISSION_STATUS_MEDIA_TYPE).setHeader('Cache-Control', 'no-store').send(jwt);
  }
}
