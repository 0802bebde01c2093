import type { EventStore, RecordedEvent } from '@mission/event-store';
import { handleCommand, type ProcessManager } from '@mission/es-kit';
import { missionDecider, missionStreamName, type MissionCreatedData } from '@mission/issuer-domain';

const SYSTEM = { id: 'issuer:mission-expiry', role: 'system' } as const;

/**
 * Records `MissionExpired` when a mission's `expires_at` passes (issue 3 item 9). Decisions never wait
 * for it — they evaluate expiry first — but status, audit and cascades need the transition as an event.
 * Idempotent: expiring an already terminal mission decides nothing.
 */
export function missionExpiryManager(store: EventStore, clock: () => Date): ProcessManager {
  return {
    name: 'mission_expiry',
    triggers: ['mission'],
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
        { type: 'expire', actor: SYSTEM, now },
        { correlationId: `expiry:${missionId}`, causationId: `pm_mission_expiry-${missionId}`, actor: SYSTEM, now },
        { hashChain: true },
      );
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000 },
  };
}
