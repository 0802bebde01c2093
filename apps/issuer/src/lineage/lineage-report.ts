import {
  lineageMember, lineageReport, missionExists, reportGeneration,
  type CascadeMode, type Mission, type MissionLifecycleState, type MissionState, type ReportedState,
} from '@mission/issuer-domain';
import { existingAncestors } from './mission-lineage.js';

/**
 * The state Mission Status, introspection and the tree report for a mission (spec 3.1, 3.2, 4.3,
 * DESIGN 2.4, decision 0020): `lineageReport` over its ancestors (`[parent, …, root]`, read now) — a
 * recorded terminal state as recorded, a terminal ancestor makes it `cascaded` before the cascade process
 * manager records that (unless its own expiry came first), its own expiry, a suspended ancestor holds it
 * `suspended`. An ancestor that cannot be read (never expected) counts as a terminal one: the mission is
 * reported non-active, never `active`.
 */
export function reportedLineage(mission: Mission, ancestors: readonly MissionState[], now: Date): ReportedState {
  const existing = existingAncestors(ancestors);
  if (existing) return lineageReport(mission, existing, now);
  return reportGeneration(lineageMember(mission, now), { state: 'revoked' }, now.getTime());
}

export function reportedState(mission: Mission, ancestors: readonly MissionState[], now: Date): MissionLifecycleState {
  return reportedLineage(mission, ancestors, now).state;
}

/** Spec 2.7: the parent projection of a Child Mission's Mission Status. */
export interface ParentStatusProjection {
  readonly id: string;
  readonly issuer: string;
  /** The parent's own reported state (its lineage state), read at `observed_at`; absent when unknown. */
  readonly state?: MissionLifecycleState;
  readonly cascade_mode: CascadeMode;
  /** Freshness (spec 2.7): when the parent state was read from its stream. */
  readonly observed_at: string;
}

/**
 * Spec 2.7 for a Child Mission, `undefined` for a root mission. `ancestors` are the child's
 * (`[parent, grandparent, …]`), read at `now`, so the parent's state is as fresh as `observed_at`.
 */
export function parentStatusProjection(mission: Mission, ancestors: readonly MissionState[], now: Date): ParentStatusProjection | undefined {
  if (!mission.parent) return undefined;
  const [parent, ...above] = ancestors;
  const state = parent !== undefined && missionExists(parent) && parent.missionId === mission.parent.id ? reportedState(parent, above, now) : undefined;
  return {
    id: mission.parent.id,
    issuer: mission.parent.issuer,
    ...(state !== undefined ? { state } : {}),
    cascade_mode: mission.parent.cascade_mode,
    observed_at: now.toISOString(),
  };
}
