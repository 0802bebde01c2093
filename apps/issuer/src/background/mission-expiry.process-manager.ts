import type { EventStore, RecordedEvent } from '@mission/event-store';
import { handleCommand, type ProcessManager } from '@mission/es-kit';
import {
  isTerminalMissionState, missionDecider, missionExists, missionStreamName,
  type CascadeMission, type ExpireMission, type MissionCreatedData, type TerminalMissionState,
} from '@mission/issuer-domain';
import { reportedLineage } from '../lineage/lineage-report.js';
import { MissionLineage } from '../lineage/mission-lineage.js';

const SYSTEM = { id: 'issuer:mission-expiry', role: 'system' } as const;

/**
 * Records `MissionExpired` when a mission's `expires_at` passes (issue 3 item 9). Decisions never wait
 * for it — they evaluate expiry first — but status, audit and cascades need the transition as an event.
 * Idempotent: expiring an already terminal mission decides nothing.
 *
 * A Child Mission whose parent (or an ancestor) ended before its `expires_at` was cascaded then, not
 * expired (decision 0020): every surface has reported it `cascaded` since. If the cascade process manager
 * has not recorded that yet, this records it (the `CascadeMission` command, which records what happened first),
 * so an expiry running ahead of a lagging cascade never turns a reported `cascaded` into `expired`.
 */
export function missionExpiryManager(store: EventStore, clock: () => Date, lineage: MissionLineage = new MissionLineage(store)): ProcessManager {
  return {
    name: 'mission_expiry',
    triggers: ['mission'],
    // Only creations are planned from: the runner reads (and counts as backlog) nothing else of the category.
    triggerTypes: ['MissionCreated'],
    plan: (event: RecordedEvent) => {
      if (event.type !== 'MissionCreated') return [];
      const data = event.data as unknown as MissionCreatedData;
      return [{ key: data.mission_id, dueAt: new Date(data.expires_at), payload: { mission_id: data.mission_id } }];
    },
    perform: async (work) => {
      const missionId = String(work.payload['mission_id']);
      const now = clock();
      await handleCommand(
        store,
        missionStreamName(missionId),
        missionDecider,
        await expiryCommand(lineage, missionId, now),
        { correlationId: `expiry:${missionId}`, causationId: `pm_mission_expiry-${missionId}`, actor: SYSTEM, now, trace: work.trace },
        { hashChain: true },
      );
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000 },
  };
}

/** `ExpireMission`, or `CascadeMission` when the mission's parent is reported terminal now (its lineage ended first, or at all). */
async function expiryCommand(lineage: MissionLineage, missionId: string, now: Date): Promise<ExpireMission | CascadeMission> {
  const expire: ExpireMission = { type: 'ExpireMission', actor: SYSTEM, now };
  const mission = await lineage.mission(missionId);
  if (!missionExists(mission) || mission.parent === undefined || isTerminalMissionState(mission.lifecycle)) return expire;
  const [parent, ...above] = await lineage.ancestors(mission);
  if (parent === undefined || !missionExists(parent)) return expire;
  const report = reportedLineage(parent, above, now);
  if (!isTerminalMissionState(report.state) || report.since === undefined) return expire;
  return {
    type: 'CascadeMission', actor: SYSTEM, missionId, parentMissionId: parent.missionId,
    parentState: report.state as TerminalMissionState, parentTerminalAt: new Date(report.since), now,
  };
}
