import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { EventStore } from '@mission/event-store';
import { handleCommand } from '@mission/es-kit';
import {
  effectiveState, isLifecycleOperation, isTerminalMissionState, lifecycleResult, missionDecider, MissionNotActiveError, missionStatusView,
  missionStreamName, nonceKey, type LifecycleOperation, type Mission, type MissionLifecycleState,
} from '@mission/issuer-domain';
import { InvalidRequestError, type Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, SERVICE_CONFIG, SigningKeys } from '@mission/platform';
import type { IssuerConfig } from '../config/issuer-config.js';
import { formOf } from '../http/oauth-form.js';
import { CLOCK } from '../oauth/clock.js';
import { IssuerOAuth } from '../oauth/issuer-oauth.service.js';
import { lifecycleProtocolError } from './lifecycle-errors.js';
import { loadAccessibleMission } from './mission-access.js';
import { MissionLineage } from './mission-lineage.js';
import { parentStatusProjection, reportedState } from './lineage-report.js';
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
    private readonly lineage: MissionLineage,
  ) {}

  /** DESIGN 2.1 `/missions/lifecycle`: revoke, suspend, resume, complete with compare-and-set and idempotency. */
  @Post('lifecycle')
  @HttpCode(200)
  async lifecycle(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<Record<string, unknown>> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission, ancestors } = await loadAccessibleMission(this.lineage, form.optional('mission_id', 64), client, 'lifecycle');
    const operation = form.required('operation', 16);
    if (!isLifecycleOperation(operation)) throw new InvalidRequestError('operation must be one of revoke, suspend, resume, complete');
    const expectedVersion = form.optional('expected_version', 10);
    if (expectedVersion !== undefined && !EXPECTED_VERSION.test(expectedVersion)) throw new InvalidRequestError('expected_version must be a positive integer');
    const nonce = form.optional('nonce', 256);
    const now = this.clock.now();
    const actor = { id: client.client_id, role: 'client' };
    refuseCascadedByLineage(mission, reportedState(mission, ancestors, now), actor.id, nonce, now);
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

  /**
   * DESIGN 2.1 `/missions/status`: a signed answer, no fresher than `mission_max_stale_seconds`. The
   * state is the lineage state (spec 3.2, 4.3); a Child Mission's answer carries the spec 2.7 `parent`
   * projection, the parent's state read in this request.
   */
  @Post('status')
  @HttpCode(200)
  async status(@Req() request: Request, @Res() response: Response): Promise<void> {
    const form = formOf(request);
    const { client } = await this.oauth.authenticate(form, request);
    const { mission, ancestors } = await loadAccessibleMission(this.lineage, form.optional('mission_id', 64), client, 'status');
    const nonce = form.optional('nonce', 256);
    const audience = form.optional('audience', 2048) ?? client.client_id;
    const now = this.clock.now();
    const parent = parentStatusProjection(mission, ancestors, now);
    const jwt = await signMissionStatusResponse(
      {
        issuer: this.oauth.issuer,
        audience,
        mission: { ...missionStatusView(mission, now), state: reportedState(mission, ancestors, now), ...(parent ? { parent } : {}) },
        now,
        maxStaleSeconds: this.config.mission_max_stale_seconds,
        ...(nonce !== undefined ? { nonce } : {}),
      },
      this.keys,
    );
    response.status(200).setHeader('Content-Type', MISSION_STATUS_MEDIA_TYPE).setHeader('Cache-Control', 'no-store').send(jwt);
  }
}

/**
 * Spec 3.2, 3.1: a child whose ancestor is terminal is cascaded from the moment that transition
 * committed, even before the cascade process manager records it; a lifecycle operation on it now would
 * record another terminal state (audit could no longer tell it was cascade-terminated) or re-grant
 * authority. Refused as the decider refuses a terminal mission — except a repeated nonce, which answers
 * as the first request did.
 */
function refuseCascadedByLineage(mission: Mission, reported: MissionLifecycleState, actorId: string, nonce: string | undefined, now: Date): void {
  if (reported !== 'cascaded' || isTerminalMissionState(effectiveState(mission, now))) return;
  if (nonce !== undefined && mission.nonces.has(nonceKey(actorId, nonce))) return;
  throw lifecycleProtocolError(new MissionNotActiveError('cascaded'));
}
