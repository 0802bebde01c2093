import type { MissionState } from '../mission/mission.state.js';

/**
 * Spec 2.4 rule 2, spec 8 `max_children`: the number of non-terminal children attached to this parent
 * (on its own stream, DESIGN 2.4 "Serialization") that draw on parent entry `parentEntryIndex`. A child
 * justified by the entry for several of its own entries counts once. 0 when there is no mission.
 */
export function activeChildCount(state: MissionState, parentEntryIndex: number): number {
  if (state.lifecycle === 'none') return 0;
  let count = 0;
  // Open children only (ADR 0080): the terminal ones a long-lived parent accumulates are never walked.
  for (const child of state.openChildren.values()) {
    if (child.parentEntryIndexes.includes(parentEntryIndex)) count += 1;
  }
  return count;
}
