import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';
import { MissionNotActiveError, MissionNotFoundError } from './mission.errors.js';
import { isTerminalMissionState, type LifecycleOperation, type MissionLifecycleState, type TerminalMissionState } from './mission-lifecycle.js';
import type { ParentLink } from './parent-link.js';

export interface NoMission {
  readonly lifecycle: 'none';
  /**
   * Set when the cascade reached this attached child before its `MissionCreated` (decision 0020):
   * the stream can never hold a mission any more.
   */
  readonly cascadedBeforeCreation?: CascadedBeforeCreation;
}

export interface CascadedBeforeCreation {
  readonly parentId: string;
  readonly parentState: TerminalMissionState;
  readonly effectiveAt: Date;
}

/** What an actor's nonce produced, so that a repeat answers the same. */
export interface NonceRecord {
  readonly operation: LifecycleOperation;
  readonly state: MissionLifecycleState;
  readonly version: number;
}

/** A Child Mission attached to this (parent) mission (DESIGN 2.4 "Serialization"). */
export interface AttachedChild {
  /** Per child entry, the justifying parent entry. */
  readonly parentEntryIndexes: readonly number[];
  /** Set once the child reached a terminal state: it no longer counts against `max_children`. */
  readonly terminal: boolean;
}

export interface Mission {
  /** The stored state. Decisions use `effectiveState`, which puts expiry first. */
  readonly lifecycle: MissionLifecycleState;
  readonly missionId: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly authoritySet: AuthoritySet;
  readonly authorityHash: string;
  readonly intent: MissionIntent;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly approvedBy: Actor;
  readonly parent?: ParentLink;
  /**
   * 1 at creation, +1 per committed lifecycle transition (DESIGN 2.3). Child attachment and
   * detachment are not lifecycle transitions and leave it unchanged.
   */
  readonly version: number;
  readonly updatedAt: Date;
  /**
   * A recorded terminal state only: when it took effect (decision 0020) — `expires_at` for `expired`,
   * the parent's terminal transition for `cascaded`, the transition itself otherwise. Recording may
   * come later (a process manager), which is why this is not `updatedAt`.
   */
  readonly terminalAt?: Date;
  /** Keyed by `nonceKey(actor.id, nonce)`. */
  readonly nonces: ReadonlyMap<string, NonceRecord>;
  /** Children attached on this stream, by child mission_id (kept after they reach a terminal state). */
  readonly children: ReadonlyMap<string, AttachedChild>;
  /**
   * The entries of `children` not yet terminal: what fan-out counts (spec 2.4 rule 2) and a cascade reaches
   * (spec 3.2), without walking every child the mission ever had — a long-lived parent keeps thousands of
   * terminal children and a handful of open ones (ADR 0080).
   */
  readonly openChildren: ReadonlyMap<string, AttachedChild>;
}

export type MissionState = NoMission | Mission;

export const initialMissionState: MissionState = { lifecycle: 'none' };

export function missionExists(state: MissionState): state is Mission {
  return state.lifecycle !== 'none';
}

export function nonceKey(actorId: string, nonce: string): string {
  return JSON.stringify([actorId, nonce]);
}

/**
 * The state every decision uses (DESIGN 2.3: "`expires_at` is evaluated before stored state on every
 * decision path"): a recorded terminal state as recorded — spec 3.1, decision 0020: a terminal state
 * never changes, on any surface, also once `expires_at` passes; otherwise `expired` once
 * `now ≥ expires_at`; otherwise the stored state (`active` or `suspended`).
 *
 * @throws MissionNotFoundError when there is no mission
 */
export function effectiveState(state: MissionState, now: Date): MissionLifecycleState {
  if (!missionExists(state)) throw new MissionNotFoundError();
  if (isTerminalMissionState(state.lifecycle)) return state.lifecycle;
  if (now.getTime() >= state.expiresAt.getTime()) return 'expired';
  return state.lifecycle;
}

/**
 * When the mission's terminal state took effect (decision 0020): for a recorded one, `terminalAt`
 * (missions folded before it existed: `expires_at` for `expired`, else the last transition); for an
 * unrecorded expiry, `expires_at`. `undefined` while the mission is not (effectively) terminal.
 */
export function terminalSince(mission: Mission, now: Date): Date | undefined {
  if (isTerminalMissionState(mission.lifecycle)) return mission.terminalAt ?? (mission.lifecycle === 'expired' ? mission.expiresAt : mission.updatedAt);
  return now.getTime() >= mission.expiresAt.getTime() ? mission.expiresAt : undefined;
}

/**
 * DESIGN 2.3: only exactly `active` permits derivation (token issuance, refresh, child creation).
 * For a child, the application also checks every ancestor (DESIGN 2.4).
 *
 * @throws MissionNotFoundError, MissionNotActiveError (with the `mission_error` code)
 */
export function assertDerivable(state: MissionState, now: Date): asserts state is Mission {
  const effective = effectiveState(state, now);
  if (effective !== 'active') throw new MissionNotActiveError(effective);
}

/** The answer to a lifecycle request: the recorded result of its nonce if any, else the current one. */
export interface LifecycleResult {
  readonly state: MissionLifecycleState;
  readonly version: number;
}

/**
 * What `POST /missions/lifecycle` reports after the command was handled (with the state returned by
 * handleCommand): for a nonce seen before, the result it produced then (a repeat returns the same
 * result even if the mission moved on since); otherwise the mission's current state and version.
 */
export function lifecycleResult(state: MissionState, command: { readonly actor: Actor; readonly nonce?: string }): LifecycleResult {
  if (!missionExists(state)) throw new MissionNotFoundError();
  const recorded = command.nonce === undefined ? undefined : state.nonces.get(nonceKey(command.actor.id, command.nonce));
  if (recorded) return { state: recorded.state, version: recorded.version };
  return { state: state.lifecycle, version: state.version };
}

/**
 * The `mission` object of a Mission Status response (DESIGN 2.1) without `fresh_until` and `parent`,
 * which the service adds (`parent` is the spec 2.7 projection, built from the parent's own stream).
 */
export interface MissionStatusView {
  readonly id: string;
  readonly issuer: string;
  readonly authority_hash: string;
  readonly state: MissionLifecycleState;
  readonly version: number;
  readonly expires_at: string;
}

export function missionStatusView(state: MissionState, now: Date): MissionStatusView {
  if (!missionExists(state)) throw new MissionNotFoundError();
  return {
    id: state.missionId,
    issuer: state.issuer,
    authority_hash: state.authorityHash,
    state: effectiveState(state, now),
    version: state.version,
    expires_at: state.expiresAt.toISOString(),
  };
}
