import { actorData, assertActor } from '../shared/actor.js';
import { InvalidCommandError } from '../shared/errors.js';
import { assertDate } from '../shared/guards.js';
import type { CascadeMission, ExpireMission } from './mission.commands.js';
import type { MissionCascaded, MissionCascadedBeforeCreation, MissionEvent, MissionExpired } from './mission.events.js';
import { missionExists, type Mission, type MissionState, type NoMission } from './mission.state.js';
import { isMissionId } from './mission-id.js';
import { isTerminalMissionState, MISSION_LIFECYCLE_STATES } from './mission-lifecycle.js';

/*
 * The mission decider's immediate cascade (spec 3.1, 3.2, 4.1 rule 1; decisions 0020, 0021) and the
 * transition data it shares with the decider's other terminal transitions.
 */

/** Evolve: the first event of an attached child's stream when the cascade came before its creation. */
export function cascadedBeforeCreation(data: MissionCascadedBeforeCreation['data']): NoMission {
  return { lifecycle: 'none', cascadedBeforeCreation: { parentId: data.parent_id, parentState: data.trigger.state, effectiveAt: new Date(data.effective_at) } };
}

/** `MissionExpired` of a non-terminal mission whose `expires_at` has passed (it took effect then). */
export function expiredEvent(state: Mission, actor: ExpireMission['actor'], now: Date): MissionExpired {
  return {
    type: 'MissionExpired',
    data: {
      mission_id: state.missionId,
      actor: actorData(actor),
      reason: 'expires_at reached',
      previous_state: state.lifecycle,
      state: 'expired',
      version: state.version + 1,
      occurred_at: now.toISOString(),
      expires_at: state.expiresAt.toISOString(),
      ...lineageData(state),
    },
  };
}

/**
 * Spec 3.2: a terminal trigger on the parent ends a non-terminal child. Decision 0020 — the record says
 * what happened first, judged on when things took effect, not on when this runs: the child's own
 * `expires_at` no later than the parent's terminal state took effect → `MissionExpired` (a tie goes to
 * the child's own expiry); otherwise `MissionCascaded`, even when it is recorded after the child's
 * `expires_at` (its `effective_at` says when it took effect). Every surface reported exactly that since
 * (lineageState), so the recorded state agrees with what was reported and never changes afterwards.
 * An attached child whose stream has no mission yet gets `MissionCascadedBeforeCreation` (4.1 rule 1).
 */
export function decideCascade(command: CascadeMission, state: MissionState): MissionEvent[] {
  assertActor(command.actor, 'actor');
  assertDate(command.now, 'now');
  assertDate(command.parentTerminalAt, 'parentTerminalAt');
  if (!isMissionId(command.missionId)) throw new InvalidCommandError('missionId must be a mission_id');
  if (!isMissionId(command.parentMissionId)) throw new InvalidCommandError('parentMissionId must be a mission_id');
  if (command.parentMissionId === command.missionId) throw new InvalidCommandError('parentMissionId must differ from missionId');
  if (!(MISSION_LIFECYCLE_STATES as readonly string[]).includes(command.parentState) || !isTerminalMissionState(command.parentState)) {
    throw new InvalidCommandError('parentState must be a terminal mission state');
  }
  if (!missionExists(state)) return decideCascadeBeforeCreation(command, state);
  if (state.missionId !== command.missionId) throw new InvalidCommandError('missionId is not this stream\'s mission');
  if (state.parent?.id !== command.parentMissionId) throw new InvalidCommandError('parentMissionId is not this mission\'s parent');
  if (isTerminalMissionState(state.lifecycle)) return [];
  const expiresAt = state.expiresAt.getTime();
  // Its own expiry came first (the expiry process manager may not have recorded it yet). `now` guards
  // against a parent time ahead of this clock: a child not expired now is not recorded expired.
  if (expiresAt <= command.parentTerminalAt.getTime() && expiresAt <= command.now.getTime()) return [expiredEvent(state, command.actor, command.now)];
  const event: MissionCascaded = {
    type: 'MissionCascaded',
    data: {
      mission_id: state.missionId,
      actor: actorData(command.actor),
      reason: `parent mission ${command.parentState}`,
      previous_state: state.lifecycle,
      state: 'cascaded',
      version: state.version + 1,
      occurred_at: command.now.toISOString(),
      trigger: { mission_id: command.parentMissionId, state: command.parentState },
      effective_at: command.parentTerminalAt.toISOString(),
      ...lineageData(state),
    },
  };
  return [event];
}

/**
 * The stream of an attached child holds no mission yet (creation in flight, or crashed after the
 * attachment): the cascade marks it, so the in-flight `CreateMission` is refused and nothing under this id can
 * ever become active. The caller vouches for the attachment (the cascade reads it on the parent's
 * stream); there is no `parent` member here to check it against. Idempotent.
 */
function decideCascadeBeforeCreation(command: CascadeMission, state: NoMission): MissionEvent[] {
  if (state.cascadedBeforeCreation) return [];
  const event: MissionCascadedBeforeCreation = {
    type: 'MissionCascadedBeforeCreation',
    data: {
      mission_id: command.missionId,
      parent_id: command.parentMissionId,
      actor: actorData(command.actor),
      reason: `parent mission ${command.parentState} before the child mission was created`,
      state: 'cascaded',
      trigger: { mission_id: command.parentMissionId, state: command.parentState },
      effective_at: command.parentTerminalAt.toISOString(),
      occurred_at: command.now.toISOString(),
    },
  };
  return [event];
}

/** Terminal transitions carry the parent (slot release) and the open-children count (cascade trigger). */
export function lineageData(state: Mission): { parent_id?: string; open_children?: number } {
  const open = state.openChildren.size;
  return { ...(state.parent ? { parent_id: state.parent.id } : {}), ...(open > 0 ? { open_children: open } : {}) };
}

