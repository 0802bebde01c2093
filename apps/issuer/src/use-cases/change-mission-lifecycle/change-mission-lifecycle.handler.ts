import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import type { RequestTrace } from '@mission/es-kit';
import {
  effectiveState, isTerminalMissionState, lifecycleResult, MissionNotActiveError, nonceKey,
  type LifecycleOperation, type Mission, type MissionLifecycleState,
} from '@mission/issuer-domain';
import { ProtocolError, type Clock } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../../config/issuer-config.js';
import { asProtocolErrors, protocolErrorOf } from '../../errors/domain-refusals.js';
import { reportedState } from '../../lineage/lineage-report.js';
import { loadAccessibleMission } from '../../lineage/mission-access.js';
import { MissionLineage } from '../../lineage/mission-lineage.js';
import { CLOCK } from '../../oauth/clock.js';

export interface LifecycleAnswer {
  readonly mission_id: string;
  readonly state: MissionLifecycleState;
  readonly version: number;
}

export interface LifecycleRequest {
  readonly operation: LifecycleOperation;
  readonly expectedVersion?: number;
  readonly nonce?: string;
}

/**
 * DESIGN 2.1 `POST /missions/lifecycle`: revoke, suspend, resume or complete, with compare-and-set and idempotency.
 * The request's shape may arrive refused: the refusal is raised only after the mission check (404 first).
 */
export class ChangeMissionLifecycle extends Command<LifecycleAnswer> {
  constructor(
    readonly client: ClientRegistration,
    readonly missionId: string | undefined,
    readonly request: LifecycleRequest | ProtocolError,
    readonly reason: { readonly reason?: string | undefined } | ProtocolError,
    /** The request it runs for (ADR 0050), into the events' metadata. */
    readonly trace: RequestTrace | undefined,
  ) {
    super();
  }
}

@CommandHandler(ChangeMissionLifecycle)
export class ChangeMissionLifecycleHandler implements ICommandHandler<ChangeMissionLifecycle> {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lineage: MissionLineage,
  ) {}

  async execute(change: ChangeMissionLifecycle): Promise<LifecycleAnswer> {
    const { mission, ancestors } = await loadAccessibleMission(this.lineage, change.missionId, change.client, 'lifecycle');
    if (change.request instanceof ProtocolError) throw change.request;
    const { operation, expectedVersion, nonce } = change.request;
    const now = this.clock.now();
    const actor = { id: change.client.client_id, role: 'client' };
    refuseCascadedByLineage(mission, reportedState(mission, ancestors, now), actor.id, nonce, now);
    if (change.reason instanceof ProtocolError) throw change.reason;
    const command = {
      type: 'ChangeMissionLifecycle' as const,
      operation,
      actor,
      reason: change.reason.reason!,
      now,
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    };
    const result = await asProtocolErrors(
      // Over the lineage's cached fold (caught up, decided, appended at that revision): a parent with thousands
      // of children is not read again from its start for each operation (ADR 0080).
      () => this.lineage.handle(
        mission.missionId, command,
        { correlationId: randomUUID(), causationId: `lifecycle:${nonce ?? randomUUID()}`, actor, now, trace: change.trace },
        { hashChain: true },
      ),
      'lifecycle',
    );
    const answer = lifecycleResult(result.state, command);
    return { mission_id: mission.missionId, state: answer.state, version: answer.version };
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
  throw protocolErrorOf(new MissionNotActiveError('cascaded'), 'lifecycle');
}
