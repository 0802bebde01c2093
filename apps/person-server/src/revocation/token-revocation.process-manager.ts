import type { ProcessManager } from '@mission/es-kit';
import { MISSION_STREAM_CATEGORY } from '@mission/ps-domain';
import type { RevocationSettings } from '../config/person-server-config.js';
import type { TokenRevocations } from './token-revocations.js';

export const TOKEN_REVOCATION_MANAGER = 'ps_token_revocation';

/** The revocation work of one terminated mission. */
export function revocationWork(missionS256: string, dueAt: Date) {
  return { key: missionS256, dueAt, payload: { mission_s256: missionS256 } };
}

/**
 * Spec 4.4, DESIGN 3.3: started by `MissionTerminated` (checkpointed trigger, or scheduled directly
 * by `terminate` so it starts at once — the same key, so it is scheduled once). Each attempt of the
 * work item is one revocation round over the mission's tokens; while tokens remain the round fails
 * and the runner retries it with exponential back-off and equal jitter, up to `max_attempts` rounds
 * (the last round closes what is left as `attempts_exhausted`). Claims, attempts and results are all
 * events, so after a crash — even `kill -9` mid-round — the next replica or restart continues from
 * the store once the claim's lease runs out.
 */
export function tokenRevocationManager(revocations: TokenRevocations, settings: RevocationSettings): ProcessManager {
  return {
    name: TOKEN_REVOCATION_MANAGER,
    triggers: [MISSION_STREAM_CATEGORY],
    // Only the event plan acts on: the mission streams are mostly logged reads (spec 6), never read here (ADR 0055).
    triggerTypes: ['MissionTerminated'],
    retry: { maxAttempts: settings.max_attempts, initialDelayMs: settings.initial_delay_ms, maxDelayMs: settings.max_delay_ms, leaseMs: settings.lease_ms },
    plan(event) {
      if (event.type !== 'MissionTerminated') return [];
      const s256 = event.data['mission_s256'];
      const at = event.data['occurred_at'];
      if (typeof s256 !== 'string' || typeof at !== 'string') return [];
      return [revocationWork(s256, new Date(at))];
    },
    async perform(work, signal) {
      const s256 = work.payload['mission_s256'];
      if (typeof s256 !== 'string') return;
      const { remaining } = await revocations.round(s256, { lastRound: work.attempt >= settings.max_attempts, signal, trace: work.trace });
      if (remaining > 0) throw new Error(`${remaining} tracked tokens are not yet confirmed revoked`);
    },
  };
}
