import type { AuthoritySet } from '../authority-set/authority-set.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import type { Actor } from '../shared/actor.js';
import { MissionNotActiveError, MissionNotFoundError } from './mission.errors.js';
import type { LifecycleOperation, MissionLifecycleState } from './mission-lifecycle.js';
import type { ParentLink } from './parent-link.js';

export interface NoMission {
  readonly lifecycle: 'none';
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
  /** Keyed by `nonceKey(actor.id, nonce)`. */
  readonly nonces: ReadonlyMap<string, NonceRecord>;
  /** Children attached on this stream, by child mission_id (kept after they reach a terminal state). */
  readonly children: ReadonlyMap<string, AttachedChild>;
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
 * decision path"): `expired` once `now ≥ expires_at`, whatever is stored — also for a mission whose
 * stored state is another terminal state (it stays that way in storage and in audit; only the
 * reported state changes) — otherwise the stored state.
 *
 * @throws MissionNotFoundError when there is no mission
 */
export function effectiveState(state: MissionState, now: Date): MissionLifecycleState {
  if (!missionExists(state)) throw new MissionNotFoundError();
  if (now.getTime() >= state.expiresAt.getTime()) return 'expired';
  return state.lifecycle;
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
