import { effectiveState, type Mission } from '../mission/mission.state.js';
import { isTerminalMissionState, type MissionLifecycleState } from '../mission/mission-lifecycle.js';

/**
 * The state a Child Mission is reported and decided with (spec 3.2, 4.3, DESIGN 2.4), from its own
 * stream and its ancestors' (`[parent, grandparent, …, root]`), without writing child events:
 * - its own terminal state (own expiry first) wins;
 * - a terminal ancestor makes it `cascaded` at once — immediate cascade takes effect when the parent
 *   transition commits, before the process manager records it on the child;
 * - a suspended ancestor holds it `suspended`; when the ancestor resumes it is back to its own state.
 * For a root mission (no ancestors) this is `effectiveState`.
 */
export function lineageState(mission: Mission, ancestors: readonly Mission[], now: Date): MissionLifecycleState {
  const own = effectiveState(mission, now);
  if (isTerminalMissionState(own)) return own;
  let suspended = own === 'suspended';
  for (const ancestor of ancestors) {
    const state = effectiveState(ancestor, now);
    if (isTerminalMissionState(state)) return 'cascaded';
    if (state === 'suspended') suspended = true;
  }
  return suspended ? 'suspended' : own;
}
