import type { DomainEvent } from '@mission/decider';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';
import type { ChildActor } from '../children/child-actor.js';
import type { ChildEvidence, FanOutRecord } from '../children/child-evidence.js';
import type { MissionLifecycleState, TerminalMissionState } from './mission-lifecycle.js';
import type { CascadeMode, ParentLink } from './parent-link.js';

/** Times are ISO 8601 UTC strings (`toISOString()`); all data is plain JSON. */
export interface MissionCreatedData {
  readonly mission_id: string;
  readonly issuer: string;
  readonly client_id: string;
  /** Normalised (DESIGN 2.3). */
  readonly authority_set: AuthoritySet;
  readonly authority_hash: string;
  readonly intent: MissionIntent;
  readonly expires_at: string;
  /** The person or policy that approved the mission: the actor of the creation. */
  readonly approved_by: Actor;
  /** Child missions only (spec 2.3). */
  readonly parent?: ParentLink;
  /** Child missions only (spec 2.1): the `child_actor` object (2.2) as requested; `sub` is `client_id`. */
  readonly child_actor?: ChildActor;
  /** Child missions only (spec 2.1 "fan-out policy result"): the counters per justifying parent entry, this child included. */
  readonly fanout?: readonly FanOutRecord[];
  readonly state: 'active';
  readonly version: 1;
  readonly occurred_at: string;
}

/** Data of every lifecycle transition event. */
export interface MissionTransitionData<State extends MissionLifecycleState> {
  readonly mission_id: string;
  readonly actor: Actor;
  readonly reason: string;
  readonly previous_state: MissionLifecycleState;
  readonly state: State;
  /** The mission version after this transition. */
  readonly version: number;
  readonly occurred_at: string;
  /** The idempotency key the actor sent, if any (scoped to actor + mission). */
  readonly nonce?: string;
  /** The compare-and-set version the actor sent, if any. */
  readonly expected_version?: number;
  /**
   * Terminal transitions of a Child Mission: its parent, so the process manager that frees the
   * parent's `max_children` slot (spec 2.4 rule 2) needs no extra read.
   */
  readonly parent_id?: string;
  /**
   * Terminal transitions only, when the mission has non-terminal children: how many. Such a
   * transition is a cascade trigger (spec 3.2); a mission without children schedules no cascade work.
   */
  readonly open_children?: number;
}

export interface MissionExpiredData extends MissionTransitionData<'expired'> {
  readonly expires_at: string;
}

/** Spec 3.1/3.2: the child was terminated because a terminal trigger hit its parent under `immediate` cascade. */
export interface MissionCascadedData extends MissionTransitionData<'cascaded'> {
  /** The parent transition that triggered it (the parent's own terminal state). */
  readonly trigger: { readonly mission_id: string; readonly state: TerminalMissionState };
  /**
   * When the cascade took effect: when the parent's terminal state did (spec 3.2 "takes effect when the
   * parent transition commits"), which may be earlier than `occurred_at` (when it was recorded). Absent
   * in events recorded before decision 0020; `occurred_at` stands in for it then.
   */
  readonly effective_at?: string;
}

/**
 * Spec 3.2, 4.1 rule 1 (decision 0020): the cascade reached a child attached on its parent's stream
 * whose own stream held no `MissionCreated` yet (its creation was still in flight, or crashed after the
 * attachment). It is the first event of `mission-<child>`: the child is cascaded before it existed, and
 * `CreateMission` is refused on this stream from then on. Not a lifecycle transition (no mission, no `version`).
 */
export interface MissionCascadedBeforeCreationData {
  readonly mission_id: string;
  readonly parent_id: string;
  readonly actor: Actor;
  readonly reason: string;
  readonly state: 'cascaded';
  readonly trigger: { readonly mission_id: string; readonly state: TerminalMissionState };
  readonly effective_at: string;
  readonly occurred_at: string;
}

/**
 * On the parent's stream (DESIGN 2.4 "Serialization"). Not a lifecycle transition: carries no
 * `version` and does not change the parent's.
 */
export interface ChildMissionAttachedData {
  /** The parent mission (this stream's). */
  readonly mission_id: string;
  readonly child_mission_id: string;
  readonly child_client_id: string;
  /** Per child entry, the justifying parent entry (spec 2.5 rule 7). */
  readonly parent_entry_indexes: readonly number[];
  readonly occurred_at: string;
  readonly actor: Actor;
  /** The creation grant the child actor redeems (DESIGN 2.4); revoked with the child if not redeemed by `grant_expires_at`. */
  readonly grant_id: string;
  readonly grant_expires_at: string;
  readonly cascade_mode: CascadeMode;
  /** The child's authority commitment and effective expiry as decided over the parent (absent in records written before issue 11). */
  readonly child_authority_hash?: string;
  readonly child_expires_at?: string;
  /**
   * Spec 2.6 / 4.1 step 11: the `created` Child Evidence, committed by the same append as the
   * attachment so it cannot be lost between the commit and a separate evidence write (decision 0009).
   */
  readonly evidence: ChildEvidence;
}

/** The child reached a terminal state: its `max_children` slots are free again (spec 2.4 rule 2). */
export interface ChildMissionDetachedData {
  readonly mission_id: string;
  readonly child_mission_id: string;
  /** The child's terminal state. */
  readonly state: TerminalMissionState;
  readonly occurred_at: string;
}

export type MissionCreated = DomainEvent<'MissionCreated', MissionCreatedData>;
export type MissionSuspended = DomainEvent<'MissionSuspended', MissionTransitionData<'suspended'>>;
export type MissionResumed = DomainEvent<'MissionResumed', MissionTransitionData<'active'>>;
export type MissionRevoked = DomainEvent<'MissionRevoked', MissionTransitionData<'revoked'>>;
export type MissionCompleted = DomainEvent<'MissionCompleted', MissionTransitionData<'completed'>>;
export type MissionExpired = DomainEvent<'MissionExpired', MissionExpiredData>;
export type MissionCascaded = DomainEvent<'MissionCascaded', MissionCascadedData>;
export type MissionCascadedBeforeCreation = DomainEvent<'MissionCascadedBeforeCreation', MissionCascadedBeforeCreationData>;

export type ChildMissionAttached = DomainEvent<'ChildMissionAttached', ChildMissionAttachedData>;
export type ChildMissionDetached = DomainEvent<'ChildMissionDetached', ChildMissionDetachedData>;

export type MissionLifecycleEvent = MissionSuspended | MissionResumed | MissionRevoked | MissionCompleted;
/** Child attachment events: on the parent's stream, outside its lifecycle (no `version`). */
export type MissionChildEvent = ChildMissionAttached | ChildMissionDetached;
export type MissionEvent = MissionCreated | MissionLifecycleEvent | MissionExpired | MissionCascaded | MissionCascadedBeforeCreation | MissionChildEvent;

export const MISSION_EVENT_TYPES = [
  'MissionCreated',
  'MissionSuspended',
  'MissionResumed',
  'MissionRevoked',
  'MissionCompleted',
  'MissionExpired',
  'MissionCascaded',
  'MissionCascadedBeforeCreation',
  'ChildMissionAttached',
  'ChildMissionDetached',
] as const satisfies readonly MissionEvent['type'][];
