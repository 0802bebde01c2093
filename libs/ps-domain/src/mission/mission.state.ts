import { MissionNotFoundError, MissionTerminatedError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import type { Actor } from '../shared/actor.js';
import type { TerminationReason } from './termination-rules.js';

/** The PS scheduler: the actor every expiry is attributed to (spec 3, spec 6). */
export const PS_SCHEDULER: Actor = { id: 'ps-scheduler', role: 'system' };

export interface NoMission {
  readonly status: 'none';
}

export interface Termination {
  readonly reason: TerminationReason;
  readonly terminatedAt: Date;
  readonly actor: Actor;
  readonly requestId?: string;
  readonly replacementS256?: string;
}

interface MissionBase {
  readonly approver: string;
  readonly missionS256: string;
  readonly agent: string;
  readonly approvedBy: string;
  readonly tenant: string;
  readonly approvedAt: Date;
  readonly expiresAt?: Date;
  /** The proposal this mission was approved from (missions approved before issue 12 have none). */
  readonly pendingId?: string;
  /** The last event's `sequence`. */
  readonly sequence: number;
  /** `requestKey(actor, request_id)` of every terminate request logged after termination began (repeats decide nothing). */
  readonly requestKeys: ReadonlySet<string>;
  /** Spec 3 rule 5: set once the body (`psblob-<s256>`) was deleted; this stream is then the tombstone. */
  readonly blobDeleted?: { readonly at: Date; readonly actor: Actor };
}

export interface ActiveMission extends MissionBase {
  readonly status: 'active';
}

export interface TerminatedMission extends MissionBase {
  readonly status: 'terminated';
  readonly termination: Termination;
}

/** Spec 1.3: exactly two states. `status` is the stored one; decisions use `effectiveState`. */
export type Mission = ActiveMission | TerminatedMission;
export type MissionState = NoMission | Mission;

export const initialMissionState: MissionState = { status: 'none' };

export function missionExists(state: MissionState): state is Mission {
  return state.status !== 'none';
}

/** Spec 3 rule 5: the body of this mission was deleted (only possible once terminated). */
export function isBlobDeleted(state: MissionState): boolean {
  return missionExists(state) && state.blobDeleted !== undefined;
}

export function requestKey(actor: Actor, requestId: string): string {
  return JSON.stringify([actor.role, actor.id, requestId]);
}

/** Spec 3: `expires_at` reached or passed (`now ≥ expires_at`). */
export function isExpiryDue(mission: Mission, now: Date): boolean {
  return mission.expiresAt !== undefined && now.getTime() >= mission.expiresAt.getTime();
}

/**
 * The termination a decision at `now` sees: the recorded one, else expiry once `expires_at` has
 * passed (reason `expired`, at `expires_at`, by the scheduler) — expiry first, on every decision path
 * (spec 3) — else none.
 */
export function effectiveTermination(mission: Mission, now: Date): Termination | undefined {
  if (mission.status === 'terminated') return mission.termination;
  if (isExpiryDue(mission, now)) return { reason: 'expired', terminatedAt: mission.expiresAt!, actor: PS_SCHEDULER };
  return undefined;
}

/**
 * Spec 3: the state every decision uses — `terminated` once recorded or once `expires_at` has passed,
 * otherwise `active`. A terminated mission never becomes active.
 *
 * @throws MissionNotFoundError when there is no mission
 */
export function effectiveState(state: MissionState, now: Date): 'active' | 'terminated' {
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  return effectiveTermination(state, now) ? 'terminated' : 'active';
}

/**
 * Spec 3 rule 3: only `active` permits token, permission, audit and interaction requests; otherwise
 * the base `mission_terminated` error (with the recorded, or the due expiry's, reason).
 *
 * @throws MissionNotFoundError, MissionTerminatedError
 */
export function assertMissionActive(state: MissionState, now: Date): ActiveMission {
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  const termination = effectiveTermination(state, now);
  if (termination) throw new MissionTerminatedError(termination.reason);
  return state as ActiveMission;
}

/** Spec 2.3: the status representation. */
export interface MissionStatusRepresentation {
  readonly mission_s256: string;
  readonly mission_status: 'active' | 'terminated';
  readonly approved_at: string;
  readonly expires_at?: string;
  readonly terminated_at?: string;
  readonly termination_reason?: TerminationReason;
  readonly observed_at: string;
  readonly fresh_until: string;
}

/**
 * Spec 2.3 / 4.1: the status representation observed at `observedAt` — `expires_at` only when the
 * blob has one; `terminated_at` and `termination_reason` only when terminated. `fresh_until` is
 * `observed_at` + `freshnessSeconds` (DESIGN 3.3: 30 s by default), but never later than the
 * `expires_at` of an active mission: a consumer must not rely on `active` past the instant the
 * mission is known to end.
 */
export function missionStatusRepresentation(state: MissionState, observedAt: Date, freshnessSeconds: number): MissionStatusRepresentation {
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  if (!(observedAt instanceof Date) || Number.isNaN(observedAt.getTime())) throw new InvalidCommandError('observedAt must be a valid Date');
  if (typeof freshnessSeconds !== 'number' || !Number.isFinite(freshnessSeconds) || freshnessSeconds < 0) {
    throw new InvalidCommandError('freshnessSeconds must be a non-negative number');
  }
  const termination = effectiveTermination(state, observedAt);
  let freshUntil = observedAt.getTime() + freshnessSeconds * 1000;
  if (!termination && state.expiresAt !== undefined) freshUntil = Math.min(freshUntil, state.expiresAt.getTime());
  return {
    mission_s256: state.missionS256,
    mission_status: termination ? 'terminated' : 'active',
    approved_at: state.approvedAt.toISOString(),
    ...(state.expiresAt !== undefined ? { expires_at: state.expiresAt.toISOString() } : {}),
    ...(termination ? { terminated_at: termination.terminatedAt.toISOString(), termination_reason: termination.reason } : {}),
    observed_at: observedAt.toISOString(),
    fresh_until: new Date(freshUntil).toISOString(),
  };
}

/** Spec 4.2: the committed result of a terminate (the application adds `token_residual`, spec 2.5). */
export interface TerminationResult {
  readonly mission_s256: string;
  readonly mission_status: 'terminated';
  readonly terminated_at: string;
  readonly termination_reason: TerminationReason;
}

/**
 * Spec 4.2 step 6 / spec 3: the terminal status a terminate returns — the first recorded termination,
 * whoever's request committed it (a late request gets the existing terminal status).
 */
export function terminationResult(state: MissionState, now: Date): TerminationResult {
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  const termination = effectiveTermination(state, now);
  if (!termination) throw new InvalidCommandError('the mission is not terminated');
  return { mission_s256: state.missionS256, mission_status: 'terminated', terminated_at: termination.terminatedAt.toISOString(), termination_reason: termination.reason };
}
