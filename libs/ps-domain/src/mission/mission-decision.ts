import { MissionNotFoundError } from '../errors/management.errors.js';
import { actorData, type Actor } from '../shared/actor.js';
import { assertTrackedTokensOf, tokenImpactSummary, type TokenImpactData } from '../tokens/token-impact.js';
import type { TrackedTokensState } from '../tokens/tracked-token.state.js';
import { MISSION_POLICIES, managementRole, type ManagementCaller, type ManagementRole } from './management-caller.js';
import type { MissionEvent, MissionLogData, MissionTerminated } from './mission.events.js';
import { evolveMission } from './mission.evolve.js';
import { isExpiryDue, missionExists, PS_SCHEDULER, type Mission, type MissionState } from './mission.state.js';

/* Steps every mission decision shares: authorization (spec 5.9), expiry first (spec 3), spec 2.8 log members. */

/** Anti-oracle (spec 5.9): absent and not authorized are the same refusal. */
export function authorized(state: MissionState, caller: ManagementCaller): { mission: Mission; role: ManagementRole; actor: Actor } {
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  const role = managementRole(state, caller);
  if (role === undefined) throw new MissionNotFoundError('not_authorized');
  return { mission: state, role, actor: { id: caller.id, role } };
}

/** Expiry first (spec 3): the MissionTerminated `expired` a decision at `now` records before anything else. */
export function expiryFirst(mission: Mission, now: Date, trackedTokens: TrackedTokensState | undefined): { events: MissionEvent[]; mission: Mission } {
  if (mission.status !== 'active' || !isExpiryDue(mission, now)) return { events: [], mission };
  const expired: MissionTerminated = {
    type: 'MissionTerminated',
    data: {
      ...logData(mission, now, PS_SCHEDULER, MISSION_POLICIES.expiry),
      reason: 'expired',
      terminated_at: mission.expiresAt!.toISOString(),
      ...tokenImpact(mission, now, trackedTokens),
    },
  };
  return { events: [expired], mission: evolveMission(mission, expired) as Mission };
}

/** Spec 2.8: the `token_impact` member of a MissionTerminated decided at `now`, when the command carried the tokens. */
export function tokenImpact(mission: Mission, now: Date, trackedTokens: TrackedTokensState | undefined): { token_impact?: TokenImpactData } {
  if (trackedTokens === undefined) return {};
  assertTrackedTokensOf(trackedTokens, mission.missionS256);
  return { token_impact: tokenImpactSummary(trackedTokens, now) };
}

export function logData(mission: Mission, now: Date, actor: Actor, policy: MissionLogData['authorization']['policy'], decision: MissionLogData['authorization']['decision'] = 'permit'): MissionLogData {
  return {
    approver: mission.approver,
    mission_s256: mission.missionS256,
    sequence: mission.sequence + 1,
    occurred_at: now.toISOString(),
    actor: actorData(actor),
    authorization: { decision, policy },
  };
}

