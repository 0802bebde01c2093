import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';
import type { ChildActor } from '../children/child-actor.js';
import type { ChildEvidence, FanOutRecord } from '../children/child-evidence.js';
import type { LifecycleOperation, TerminalMissionState } from './mission-lifecycle.js';
import type { CascadeMode, ParentLink } from './parent-link.js';

/** Approval creates the mission `active` (DESIGN 2.3). The application generates the id. */
export interface CreateMission {
  readonly type: 'CreateMission';
  readonly missionId: string;
  /** The issuer identifier (BASE_URL); `authorityHash` must be computed with it. */
  readonly issuer: string;
  readonly clientId: string;
  readonly authoritySet: AuthoritySet;
  readonly authorityHash: string;
  readonly intent: MissionIntent;
  /** Effective expiry: ≤ the intent's `expires_at` (a child's is also ≤ its parent's, DESIGN 2.4). */
  readonly expiresAt: Date;
  readonly approvedBy: Actor;
  readonly now: Date;
  /** Child missions only; carried into the record unchanged. */
  readonly parent?: ParentLink;
  /** Child missions only (spec 2.1: the record holds the child actor and the fan-out policy result). */
  readonly child?: { readonly actor: ChildActor; readonly fanout: readonly FanOutRecord[] };
  /**
   * Child missions only, REQUIRED with `parent` (spec 2.1, 8 `expires_at`; issue 11 item 9): the parent's
   * bounds as read for the creation, so the child's own record can never outlive the parent or name a
   * resource the parent's intent does not. `AttachChild` on the parent's stream decides the same bounds over
   * the parent's real state; this is the child stream's own guard.
   */
  readonly parentBounds?: ParentBounds;
}

/** What a child's record may not exceed: the parent's `expires_at` and the resources of the parent's intent. */
export interface ParentBounds {
  readonly expiresAt: Date;
  readonly intentResources: readonly string[];
}

/** The Child Mission as requested, decided over the parent's state by `AttachChild` (spec 2.1, 2.5, 8). */
export interface RequestedChild {
  readonly authoritySet: AuthoritySet;
  /** The child's effective `expires_at` (already capped by the caller; refused if later than the parent's). */
  readonly expiresAt: Date;
  readonly intentResources: readonly string[];
}

/** `POST /missions/lifecycle` (DESIGN 2.1). */
export interface ChangeMissionLifecycle {
  readonly type: 'ChangeMissionLifecycle';
  /** The wire value of `operation` (revoke, suspend, resume, complete); checked by the decider. */
  readonly operation: LifecycleOperation;
  /** The authenticated caller; nonces are scoped to `actor.id` + mission. */
  readonly actor: Actor;
  readonly reason: string;
  /** Compare-and-set: refused with StaleVersionError unless it equals the current version. */
  readonly expectedVersion?: number;
  /** Idempotency key: a repeat with the same operation decides nothing and has the same result. */
  readonly nonce?: string;
  readonly now: Date;
}

/** From the mission-expiry process manager, due at `expires_at`. */
export interface ExpireMission {
  readonly type: 'ExpireMission';
  readonly actor: Actor;
  readonly now: Date;
}

/**
 * DESIGN 2.4 "Serialization": attaches a Child Mission to this (parent) mission by an event on the
 * parent's stream, appended with the expected revision the creation read — so `max_children` (spec 8)
 * holds under concurrency and a terminal parent transition and a creation cannot both win.
 */
export interface AttachChild {
  readonly type: 'AttachChild';
  readonly childMissionId: string;
  /** The child actor's client (spec 2.2 `child_actor.sub`). */
  readonly childClientId: string;
  /** The child's authority, expiry and intent resources: the decider refuses any that exceed the parent (spec 2.5, 8). */
  readonly child: RequestedChild;
  /**
   * Per child entry, the index of the parent entry that justifies it (checkStrictSubset's
   * `justifications[i].parentIndex`, in child-entry order). Each must carry `delegation.children`.
   */
  readonly parentEntryIndexes: readonly number[];
  /** Who requested the creation (the authenticated client submitting it). */
  readonly actor: Actor;
  readonly now: Date;
  /** The creation grant (DESIGN 2.4) and when it lapses unredeemed. */
  readonly grantId: string;
  readonly grantExpiresAt: Date;
  readonly cascadeMode: CascadeMode;
  /** The `created` evidence (spec 2.6), committed with the attachment (spec 4.1 step 11). */
  readonly evidence: ChildEvidence;
}

/**
 * From a process manager, once the child's own stream records a terminal state: frees the child's
 * `max_children` slots (spec 2.4 rule 2). Idempotent.
 */
export interface DetachChild {
  readonly type: 'DetachChild';
  readonly childMissionId: string;
  readonly state: TerminalMissionState;
  readonly now: Date;
}

/**
 * Spec 3.2 immediate cascade, from the cascade process manager (or creation, or expiry, when they find
 * the parent already terminal): a terminal trigger hit this (child) mission's parent. Records what
 * happened first (decision 0020): `cascaded`, or `expired` when the child's own `expires_at` came no
 * later than the parent's terminal state took effect. Idempotent: a child already terminal decides nothing.
 * On a stream without a mission yet (an attached child whose creation is in flight or crashed), it
 * records `MissionCascadedBeforeCreation`, after which `CreateMission` is refused there.
 */
export interface CascadeMission {
  readonly type: 'CascadeMission';
  readonly actor: Actor;
  /** The child: this stream's mission. */
  readonly missionId: string;
  /** Must be this mission's `parent.id`. */
  readonly parentMissionId: string;
  readonly parentState: TerminalMissionState;
  /** When the parent's terminal state took effect (`terminalSince` of the parent, or its lineage report). */
  readonly parentTerminalAt: Date;
  readonly now: Date;
}

export type MissionCommand = CreateMission | ChangeMissionLifecycle | ExpireMission | AttachChild | DetachChild | CascadeMission;
