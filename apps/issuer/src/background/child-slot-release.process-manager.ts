import type { RecordedEvent } from '@mission/event-store';
import type { ProcessManager, ScheduledWork } from '@mission/es-kit';
import { isTerminalMissionState, type DetachChild, type MissionLifecycleState } from '@mission/issuer-domain';
import type { MissionLineage } from '../lineage/mission-lineage.js';
import { terminalTransition } from './terminal-transition.js';

export const SLOT_RELEASE_ACTOR = { id: 'issuer:child-slot-release', role: 'system' } as const;

/**
 * Spec 2.4 rule 2: a Child Mission counts against its parent's `max_children` until it reaches a
 * terminal state. A terminal transition of a child (it carries `parent_id`) appends
 * `DetachChild` to the parent's stream, which frees the slot. `MissionCascaded` is left out:
 * the parent is then terminal itself and can attach nothing any more. Idempotent: the parent decides
 * nothing for a child already detached.
 *
 * The parent is decided on over its cached fold (`parents`, the service's MissionLineage), which reads only what its
 * stream got since: with a full read per release, a long-lived parent with n children re-read its whole stream for
 * each child that ended — O(n) per slot release, O(n²) over the parent's life (ADR 0080).
 */
export function childSlotReleaseManager(parents: Pick<MissionLineage, 'handle'>, clock: () => Date, retry: ProcessManager['retry'] = {}): ProcessManager {
  return {
    name: 'child_slot_release',
    triggers: ['mission'],
    plan: (event: RecordedEvent): ScheduledWork[] => {
      const transition = terminalTransition(event);
      if (!transition || transition.parentId === undefined || transition.type === 'MissionCascaded') return [];
      return [
        {
          key: transition.missionId,
          dueAt: transition.occurredAt,
          payload: {
            parent_mission_id: transition.parentId,
            child_mission_id: transition.missionId,
            state: transition.state,
            trigger_event_id: event.id,
            ...(typeof event.metadata['correlation_id'] === 'string' ? { correlation_id: event.metadata['correlation_id'] } : {}),
          },
        },
      ];
    },
    perform: async (work) => {
      const parentId = String(work.payload['parent_mission_id']);
      const childId = String(work.payload['child_mission_id']);
      const state = String(work.payload['state']) as MissionLifecycleState;
      if (!isTerminalMissionState(state)) throw new Error(`work item ${work.key} names a non-terminal state ${state}`);
      const now = clock();
      const command: DetachChild = { type: 'DetachChild', childMissionId: childId, state, now };
      await parents.handle(
        parentId,
        command,
        {
          correlationId: typeof work.payload['correlation_id'] === 'string' ? work.payload['correlation_id'] : `slot-release:${childId}`,
          causationId: typeof work.payload['trigger_event_id'] === 'string' ? work.payload['trigger_event_id'] : `pm_child_slot_release-${childId}`,
          actor: SLOT_RELEASE_ACTOR,
          now,
          trace: work.trace,
        },
        { hashChain: true, maxAttempts: 10 },
      );
    },
    retry: { maxAttempts: 20, initialDelayMs: 200, maxDelayMs: 60_000, leaseMs: 30_000, ...retry },
  };
}
