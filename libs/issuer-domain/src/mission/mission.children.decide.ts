import { authorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import { InvalidAuthorizationDetailsError } from '../authority-set/invalid-authorization-details.error.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { FanOutExceededError, ParentNotActiveError } from '../children/child-attachment.errors.js';
import { ChildCreationDeniedError } from '../children/child-creation-denied.error.js';
import { activeChildCount } from '../children/fan-out.js';
import { isGrantId } from '../grant/grant-ids.js';
import { actorData, assertActor } from '../shared/actor.js';
import { InvalidCommandError } from '../shared/errors.js';
import { assertDate, assertText } from '../shared/guards.js';
import { authorityObstacle } from '../subset/check-strict-subset.js';
import type { AttachChild, RequestedChild, DetachChild, CreateMission, ParentBounds } from './mission.commands.js';
import { MissionNotFoundError } from './mission.errors.js';
import type { ChildMissionAttached, ChildMissionDetached, MissionEvent } from './mission.events.js';
import { effectiveState, missionExists, type Mission, type MissionState } from './mission.state.js';
import { isMissionId } from './mission-id.js';
import { isTerminalMissionState, MISSION_LIFECYCLE_STATES } from './mission-lifecycle.js';
import { CASCADE_MODES } from './parent-link.js';

/*
 * The mission decider's Child Mission decisions (DESIGN 2.4, spec 2.1, 2.4, 2.5): the child's own record
 * bounded by its parent, and the attachment / detachment of children on the parent's stream.
 */

/** Spec 2.1: only a child carries them, its `client_id` is the child actor's `sub`, and the fan-out result is well formed. */
export function assertChildRecord(child: NonNullable<CreateMission['child']>, command: CreateMission): void {
  if (command.parent === undefined) throw new InvalidCommandError('child actor and fan-out belong to a child mission (parent required)');
  if (typeof child.actor !== 'object' || child.actor === null || child.actor.sub !== command.clientId) {
    throw new InvalidCommandError('child actor sub must equal clientId (spec 2.1)');
  }
  const wellFormed = Array.isArray(child.fanout) && child.fanout.every((record) =>
    [record.parent_entry, record.active_children, ...(record.max_children !== undefined ? [record.max_children] : [])].every((n) => Number.isSafeInteger(n) && n >= 0));
  if (!wellFormed) throw new InvalidCommandError('fanout must be a list of counters per parent entry');
}

/**
 * Spec 2.1 and 8 (`expires_at` no later than the parent's), issue 11 item 9: a child's record never outlives
 * its parent and its intent names only resources of the parent's intent. Refused here, not only in the
 * service, so no caller can write such a record.
 */
export function assertWithinParentBounds(bounds: ParentBounds | undefined, expiresAt: Date, resources: readonly string[]): void {
  if (bounds === undefined || typeof bounds !== 'object') throw new InvalidCommandError('a child mission needs parentBounds (spec 2.1)');
  assertDate(bounds.expiresAt, 'parentBounds.expiresAt');
  if (expiresAt.getTime() > bounds.expiresAt.getTime()) throw new InvalidCommandError('a child mission\'s expiresAt must not be later than its parent\'s (spec 2.1, 8)');
  const outside = resources.find((resource) => !bounds.intentResources.includes(resource));
  if (outside !== undefined) throw new InvalidCommandError('a child mission\'s intent names a resource outside its parent\'s intent (spec 2.5 rule 2)');
}

/**
 * DESIGN 2.4 "Serialization", spec 4.1 steps 4, 8 and 10, spec 2.4 rules 2–3, spec 8 `max_children`.
 * Checks run in spec order: the parent is (effectively) active, then fan-out per justifying entry.
 */
export function decideAttachChild(command: AttachChild, state: MissionState): MissionEvent[] {
  assertActor(command.actor, 'actor');
  assertDate(command.now, 'now');
  if (!isMissionId(command.childMissionId)) throw new InvalidCommandError('childMissionId must be a mission_id');
  assertText(command.childClientId, 'childClientId', 256);
  if (!isGrantId(command.grantId)) throw new InvalidCommandError('grantId must be a grant id');
  assertDate(command.grantExpiresAt, 'grantExpiresAt');
  if (!(CASCADE_MODES as readonly string[]).includes(command.cascadeMode)) throw new InvalidCommandError('cascadeMode must be a cascade mode');
  if (typeof command.evidence !== 'object' || command.evidence === null || command.evidence.decision !== 'created') {
    throw new InvalidCommandError('evidence must be the created Child Evidence');
  }
  if (!missionExists(state)) throw new MissionNotFoundError();
  if (command.childMissionId === state.missionId) throw new InvalidCommandError('childMissionId must differ from the parent mission_id');
  const indexes = checkedParentEntryIndexes(command.parentEntryIndexes, state);
  const childAuthorityHash = checkedAttachedChild(command.child, indexes, state);

  const existing = state.children.get(command.childMissionId);
  if (existing) {
    // A retry of the same attachment decides nothing; anything else is a bug at the caller.
    const same = !existing.terminal && existing.parentEntryIndexes.length === indexes.length && existing.parentEntryIndexes.every((index, i) => index === indexes[i]);
    if (same) return [];
    throw new InvalidCommandError('childMissionId is already attached to this parent');
  }

  const from = effectiveState(state, command.now);
  if (from !== 'active') throw new ParentNotActiveError(from);
  // Spec 1 item 4, 5 rule 3: the parent's own client never becomes its child actor (it would hold the child's tokens).
  if (command.childClientId === state.clientId) {
    throw new ChildCreationDeniedError('child_actor_not_allowed', 'child_actor.sub is the client of the parent mission; a child actor must be another client');
  }

  for (const index of new Set(indexes)) {
    const max = state.authoritySet[index]!.delegation?.children?.max_children;
    if (max !== undefined && activeChildCount(state, index) + 1 > max) throw new FanOutExceededError(index, max);
  }

  const event: ChildMissionAttached = {
    type: 'ChildMissionAttached',
    data: {
      mission_id: state.missionId,
      child_mission_id: command.childMissionId,
      child_client_id: command.childClientId,
      parent_entry_indexes: [...indexes],
      occurred_at: command.now.toISOString(),
      actor: actorData(command.actor),
      grant_id: command.grantId,
      grant_expires_at: command.grantExpiresAt.toISOString(),
      cascade_mode: command.cascadeMode,
      child_authority_hash: childAuthorityHash,
      child_expires_at: command.child.expiresAt.toISOString(),
      evidence: command.evidence,
    },
  };
  return [event];
}

/**
 * Spec 2.5 rules 1–2, spec 2.1 / 8 `expires_at`, issue 11 item 9, decided over the parent's real state: each
 * child entry is no broader than the parent entry that justifies it, the child expires no later than the parent,
 * and its intent names only resources of the parent's intent. Returns the child's authority hash.
 */
function checkedAttachedChild(child: RequestedChild, indexes: readonly number[], state: Mission): string {
  if (typeof child !== 'object' || child === null) throw new InvalidCommandError('child must describe the Child Mission (authority, expiry, resources)');
  const authoritySet = checkedAuthoritySet(child.authoritySet);
  if (authoritySet.length !== indexes.length) throw new InvalidCommandError('parentEntryIndexes must name one parent entry per child entry');
  authoritySet.forEach((entry, i) => {
    const obstacle = authorityObstacle(state.authoritySet[indexes[i]!]!, entry);
    if (obstacle !== undefined) throw new ChildCreationDeniedError('not_strict_subset', `authorization_details[${i}] is not a strict subset of parent entry ${indexes[i]}: ${obstacle}`);
  });
  assertDate(child.expiresAt, 'child.expiresAt');
  if (child.expiresAt.getTime() > state.expiresAt.getTime()) throw new InvalidCommandError('the child\'s expiresAt must not be later than the parent\'s (spec 2.1, 8)');
  if (!Array.isArray(child.intentResources) || child.intentResources.some((resource) => !state.intent.resources.includes(resource))) {
    throw new ChildCreationDeniedError('not_strict_subset', 'mission_intent.intent.resources names a resource the parent mission\'s intent does not');
  }
  return authorityHash(state.issuer, authoritySet);
}

/** Spec 2.4 rule 2: a terminal child frees its slots. Unknown or already detached children: no events. */
export function decideDetachChild(command: DetachChild, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  if (!isMissionId(command.childMissionId)) throw new InvalidCommandError('childMissionId must be a mission_id');
  if (!(MISSION_LIFECYCLE_STATES as readonly string[]).includes(command.state) || !isTerminalMissionState(command.state)) {
    throw new InvalidCommandError('state must be a terminal mission state');
  }
  if (!missionExists(state)) throw new MissionNotFoundError();
  const child = state.children.get(command.childMissionId);
  if (!child || child.terminal) return [];
  const event: ChildMissionDetached = {
    type: 'ChildMissionDetached',
    data: { mission_id: state.missionId, child_mission_id: command.childMissionId, state: command.state, occurred_at: command.now.toISOString() },
  };
  return [event];
}

/** Non-empty, one per child entry, each naming a parent entry that carries `delegation.children`. */
function checkedParentEntryIndexes(indexes: readonly number[], state: Mission): readonly number[] {
  const ok =
    Array.isArray(indexes) &&
    indexes.length > 0 &&
    indexes.every((index) => Number.isSafeInteger(index) && index >= 0 && index < state.authoritySet.length && state.authoritySet[index]!.delegation?.children !== undefined);
  if (!ok) throw new InvalidCommandError('parentEntryIndexes must name, per child entry, a parent entry that carries delegation.children');
  return indexes;
}


/** DESIGN 2.3: the authority set as the parser accepts it; anything else is a caller bug. */
export function checkedAuthoritySet(set: AuthoritySet): AuthoritySet {
  try {
    return parseAuthorizationDetails(set);
  } catch (error) {
    if (error instanceof InvalidAuthorizationDetailsError) throw new InvalidCommandError(`authoritySet: ${error.message}`);
    throw error;
  }
}
