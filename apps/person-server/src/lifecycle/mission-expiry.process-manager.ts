import type { EventStore, RecordedEvent } from '@mission/event-store';
import type { ProcessManager } from '@mission/es-kit';
import { MISSION_STREAM_CATEGORY, missionExists, PS_SCHEDULER, type MissionApprovedData } from '@mission/ps-domain';
import { MissionLog } from '../store/mission-log.js';
import { TokenLedger } from '../store/token-ledger.js';

/**
 * Options of every append to `psmission-<s256>` (the same as MissionManagement's MISSION_STREAM_OPTIONS):
 * the lifecycle stream is hash-chained (DESIGN 1), and a busy mission may need many attempts.
 */
export const MISSION_STREAM_OPTIONS = { hashChain: true, maxAttempts: 50 } as const;

/** Thrown by `perform` when the work ran before the mission's `expires_at` (clock skew): retried later. */
export class ExpiryNotYetDueError extends Error {
  constructor() {
    super('the mission has not reached expires_at yet');
  }
}

/**
 * Spec 3 (`expires_at` reached → `terminated`, reason `expired`) and spec 6 ("expiry to the PS
 * scheduler"): records the expiry when nobody asks. Every decision path already applies expiry first
 * (the decider's `expiryFirst`); this process manager makes the transition an event at the due time,
 * so the mission log, audit and later token revocation see it without a request.
 *
 * Triggered by `MissionApproved` with `expires_at` on `psmission`; the work (key = `mission_s256`,
 * due at `expires_at`) runs `ApplyMissionExpiry` through the app's MissionLog under the stream's expected
 * revision, so the first committed transition wins (spec 3 rule 2): a terminate that committed first
 * leaves nothing to record, and a second run decides nothing (idempotent). The work is durable
 * (`pm_ps_mission_expiry-<s256>`), so a restart before the due time still records the expiry.
 * `ledger` is the app's TokenLedger (its cached fold of `pstokens-<s256>`), read for the token-impact summary;
 * `missionLog` the app's MissionLog, whose snapshots (ADR 0059) spare a mission of many logged reads a full fold.
 */
export function missionExpiryManager(
  store: EventStore, clock: () => Date, ledger: Pick<TokenLedger, 'state'> = new TokenLedger(store), missionLog: Pick<MissionLog, 'execute'> = new MissionLog(store),
): ProcessManager {
  return {
    name: 'ps_mission_expiry',
    triggers: [MISSION_STREAM_CATEGORY],
    // Only the event plan acts on: the mission streams are mostly logged reads (spec 6), never read here (ADR 0055).
    triggerTypes: ['MissionApproved'],
    plan: (event: RecordedEvent) => {
      if (event.type !== 'MissionApproved') return [];
      const data = event.data as unknown as MissionApprovedData;
      if (typeof data.expires_at !== 'string' || typeof data.mission_s256 !== 'string') return [];
      return [{ key: data.mission_s256, dueAt: new Date(data.expires_at), payload: { mission_s256: data.mission_s256, expires_at: data.expires_at } }];
    },
    perform: async (work) => {
      const s256 = String(work.payload['mission_s256']);
      const now = clock();
      // Spec 2.8: the expiry records the token-impact summary of the mission's tracked tokens.
      const trackedTokens = await ledger.state(s256);
      const result = await missionLog.execute(
        s256,
        { type: 'ApplyMissionExpiry', now, trackedTokens },
        { correlationId: `expiry:${s256}`, causationId: `pm_ps_mission_expiry-${s256}`, actor: PS_SCHEDULER, now, trace: work.trace },
      );
      // Never complete the work while the mission is still active: retry once the clock reaches expires_at.
      if (missionExists(result.state) && result.state.status === 'active') throw new ExpiryNotYetDueError();
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000 },
  };
}
