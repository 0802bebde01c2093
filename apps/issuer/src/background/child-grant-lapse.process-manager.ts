import type { EventStore, RecordedEvent } from '@mission/event-store';
import { handleCommand, type CommandContext, type ProcessManager, type ScheduledWork } from '@mission/es-kit';
import {
  grantDecider,
  grantStreamName,
  missionDecider,
  MissionNotActiveError,
  MissionNotFoundError,
  missionStreamName,
  type ChildMissionAttachedData,
  type GrantState,
} from '@mission/issuer-domain';

export const GRANT_LAPSE_ACTOR = { id: 'issuer:child-grant-lapse', role: 'system' } as const;
export const GRANT_LAPSE_REASON = 'creation grant not redeemed before it expired';

export interface ChildGrantLapseOptions {
  readonly logger?: { debug(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  readonly retry?: ProcessManager['retry'];
}

/**
 * DESIGN 2.4: "A Child Mission whose grant is not redeemed before `expires_in` is revoked (frees its
 * fan-out slot)". Each `ChildMissionAttached` schedules work due at its `grant_expires_at`:
 * 1. `LapseChildGrant` on the grant stream first, so a redemption arriving later fails;
 * 2. if the grant was never redeemed (now revoked, or never issued: a crash during the creation), the
 *    child is revoked through the ordinary `revoke` lifecycle command — its `MissionRevoked` carries
 *    `parent_id`, so the slot-release process manager frees the slot; a child already terminal is left
 *    as it is; a child whose stream was never written is detached from the parent here directly.
 * A redeemed grant leaves the child alone. Every step is idempotent, so the work may run again.
 */
export function childGrantLapseManager(store: EventStore, clock: () => Date, options: ChildGrantLapseOptions = {}): ProcessManager {
  return {
    name: 'child_grant_lapse',
    triggers: ['mission'],
    // Only attachments are planned from: a start reads (and counts as backlog) nothing else of the category.
    triggerTypes: ['ChildMissionAttached'],
    plan: (event: RecordedEvent): ScheduledWork[] => {
      if (event.type !== 'ChildMissionAttached') return [];
      const data = event.data as unknown as ChildMissionAttachedData;
      return [
        {
          key: data.child_mission_id,
          dueAt: new Date(data.grant_expires_at),
          payload: { child_mission_id: data.child_mission_id, parent_mission_id: data.mission_id, grant_id: data.grant_id },
        },
      ];
    },
    perform: async (work) => {
      const childId = String(work.payload['child_mission_id']);
      const parentId = String(work.payload['parent_mission_id']);
      const grantId = String(work.payload['grant_id']);
      const contextAt = (now: Date): CommandContext => ({
        correlationId: `child-grant-lapse:${childId}`,
        causationId: `pm_child_grant_lapse-${childId}`,
        actor: GRANT_LAPSE_ACTOR,
        now,
        trace: work.trace,
      });

      let now = clock();
      const grant = await handleCommand(store, grantStreamName(grantId), grantDecider, { type: 'LapseChildGrant', actor: GRANT_LAPSE_ACTOR, now }, contextAt(now));
      if (grant.state.status !== 'none' && grant.state.kind !== 'child_creation') {
        options.logger?.warn({ child_mission_id: childId, grant_id: grantId }, 'child grant lapse: the grant is not a child creation grant, child left alone');
        return;
      }
      if (!neverRedeemable(grant.state)) {
        options.logger?.debug({ child_mission_id: childId, grant_id: grantId }, 'child grant lapse: grant was redeemed, child stays');
        return;
      }

      now = clock();
      try {
        await handleCommand(
          store,
          missionStreamName(childId),
          missionDecider,
          { type: 'ChangeMissionLifecycle', operation: 'revoke', actor: GRANT_LAPSE_ACTOR, reason: GRANT_LAPSE_REASON, now },
          contextAt(now),
          { hashChain: true, maxAttempts: 10 },
        );
      } catch (error) {
        // Already terminal (or past its own expires_at): its own terminal event frees the slot.
        if (error instanceof MissionNotActiveError) return;
        if (!(error instanceof MissionNotFoundError)) throw error;
        // Attached but never created: no child event will ever free the slot, so free it here.
        options.logger?.debug({ parent_mission_id: parentId, child_mission_id: childId }, 'child grant lapse: child mission never created, detaching it');
        await handleCommand(
          store,
          missionStreamName(parentId),
          missionDecider,
          { type: 'DetachChild', childMissionId: childId, state: 'revoked', now },
          contextAt(now),
          { hashChain: true, maxAttempts: 10 },
        );
      }
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000, ...options.retry },
  };
}

/**
 * After `LapseChildGrant`: true when the child actor can no longer redeem and never did — the grant
 * does not exist, or it is a creation grant revoked before redemption (by the lapse, or earlier).
 */
function neverRedeemable(state: GrantState): boolean {
  if (state.status === 'none') return true;
  return !state.codeRedeemed && state.status === 'revoked';
}
