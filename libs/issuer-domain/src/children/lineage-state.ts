import { terminalSince, type Mission } from '../mission/mission.state.js';
import { isTerminalMissionState, type MissionLifecycleState } from '../mission/mission-lifecycle.js';

/** A state as Mission Status, introspection and the tree report it. */
export interface ReportedState {
  readonly state: MissionLifecycleState;
  /** Terminal states: when the state took effect (epoch ms), which is not always when it was recorded. */
  readonly since?: number;
}

/** What one generation of a lineage contributes to what is reported (times in epoch ms). */
export interface LineageMember {
  /** The stored state. */
  readonly lifecycle: MissionLifecycleState;
  readonly expiresAt: number;
  /** A recorded terminal state: when it took effect (`terminalSince`). */
  readonly terminalAt?: number;
}

/**
 * One generation of the reported state (spec 3.1, 3.2, 4.3, DESIGN 2.4; decision 0020), from the
 * mission's own record and its parent's reported state (`undefined` for a root):
 * - a recorded terminal state is reported as recorded, for ever — also after `expires_at` (spec 3.1:
 *   terminal; audit must keep telling `cascaded` from `revoked` and `expired`);
 * - a terminal parent (recorded, projected or expired by time) makes it `cascaded` from the moment the
 *   parent's state took effect — unless its own `expires_at` came no later than that: then it is
 *   `expired` (what happened first; a tie goes to its own expiry);
 * - otherwise its own expiry makes it `expired`, before any suspension (spec 3.2 last row: only a
 *   *projected* `suspended` yields to the child's own expiry);
 * - a suspended parent holds it `suspended`; when the parent resumes it is back to its own state.
 * The cascade decision (`decideCascade`) applies the same rule, so what it records is what was reported.
 */
export function reportGeneration(own: LineageMember, parent: ReportedState | undefined, now: number): ReportedState {
  if (isTerminalMissionState(own.lifecycle)) return { state: own.lifecycle, since: own.terminalAt ?? now };
  const expiredAt = now >= own.expiresAt ? own.expiresAt : undefined;
  if (parent !== undefined && isTerminalMissionState(parent.state)) {
    const cascadedAt = parent.since ?? now;
    if (expiredAt !== undefined && expiredAt <= cascadedAt) return { state: 'expired', since: expiredAt };
    return { state: 'cascaded', since: cascadedAt };
  }
  if (expiredAt !== undefined) return { state: 'expired', since: expiredAt };
  if (own.lifecycle === 'suspended' || parent?.state === 'suspended') return { state: 'suspended' };
  return { state: own.lifecycle };
}

/** A folded mission as a lineage member at `now`. */
export function lineageMember(mission: Mission, now: Date): LineageMember {
  const terminalAt = isTerminalMissionState(mission.lifecycle) ? terminalSince(mission, now)?.getTime() : undefined;
  return { lifecycle: mission.lifecycle, expiresAt: mission.expiresAt.getTime(), ...(terminalAt !== undefined ? { terminalAt } : {}) };
}

/**
 * The reported state of a mission with its ancestors (`[parent, grandparent, …, root]`), computed from
 * the root down with `reportGeneration`, without writing child events: a terminal ancestor makes it
 * `cascaded` at once — immediate cascade takes effect when the parent transition commits, before the
 * process manager records it on the child.
 */
export function lineageReport(mission: Mission, ancestors: readonly Mission[], now: Date): ReportedState {
  const at = now.getTime();
  let above: ReportedState | undefined;
  for (let i = ancestors.length - 1; i >= 0; i--) above = reportGeneration(lineageMember(ancestors[i]!, now), above, at);
  return reportGeneration(lineageMember(mission, now), above, at);
}

/**
 * The state a Child Mission is reported and decided with (spec 3.2, 4.3, DESIGN 2.4): `lineageReport`'s
 * state. For a root mission (no ancestors) this is `effectiveState`.
 */
export function lineageState(mission: Mission, ancestors: readonly Mission[], now: Date): MissionLifecycleState {
  return lineageReport(mission, ancestors, now).state;
}
