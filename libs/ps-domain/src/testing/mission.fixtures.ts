/** Commands and events of the Mission aggregate shared by the `mission.decider.*.spec.ts` files (not part of the build). */
import type { ApproveMission, TerminateMission } from '../mission/mission.commands.js';
import type { MissionApproved, MissionEvent, MissionTerminated } from '../mission/mission.events.js';
import { PS_SCHEDULER } from '../mission/mission.state.js';
import { AGENT, APPROVER, EXPIRES_AT, MISSION_S256, OWNING_AGENT, REQUEST_ID, T0, T1, TENANT } from './fixtures.js';

/** Alice approves AGENT's mission at T0, expiring at EXPIRES_AT. */
export const approve = (overrides: Partial<ApproveMission> = {}): ApproveMission => ({
  type: 'ApproveMission',
  approver: APPROVER,
  missionS256: MISSION_S256,
  agent: AGENT,
  approvedBy: 'alice',
  tenant: TENANT,
  expiresAt: EXPIRES_AT,
  now: T0,
  ...overrides,
});

/** The Owning Agent revokes the mission at T1. */
export const terminate = (overrides: Partial<TerminateMission> = {}): TerminateMission => ({
  type: 'TerminateMission',
  caller: OWNING_AGENT,
  reason: 'revoked',
  requestId: REQUEST_ID,
  now: T1,
  ...overrides,
});

/** The Mission Reference every event carries. */
export const base = { approver: APPROVER, mission_s256: MISSION_S256 };
export const permit = (policy: string) => ({ decision: 'permit', policy }) as MissionEvent['data']['authorization'];

/** The event of {@link approve}. */
export const missionApproved: MissionApproved = {
  type: 'MissionApproved',
  data: {
    ...base,
    sequence: 1,
    occurred_at: T0.toISOString(),
    actor: { id: 'alice', role: 'person' },
    authorization: permit('ps:person-owns-agent'),
    agent: AGENT,
    approved_by: 'alice',
    tenant: TENANT,
    approved_at: T0.toISOString(),
    expires_at: EXPIRES_AT.toISOString(),
  },
};

/** The event of {@link terminate} after {@link missionApproved}. */
export const revokedByAgent: MissionTerminated = {
  type: 'MissionTerminated',
  data: {
    ...base,
    sequence: 2,
    occurred_at: T1.toISOString(),
    actor: { id: AGENT, role: 'agent' },
    authorization: permit('ps:owning-agent'),
    reason: 'revoked',
    terminated_at: T1.toISOString(),
    request_id: REQUEST_ID,
  },
};

/** The expiry the PS scheduler records at `now` (terminated at EXPIRES_AT). */
export const expiredBy = (sequence: number, now: Date): MissionTerminated => ({
  type: 'MissionTerminated',
  data: { ...base, sequence, occurred_at: now.toISOString(), actor: PS_SCHEDULER, authorization: permit('ps:expires-at'), reason: 'expired', terminated_at: EXPIRES_AT.toISOString() },
});
