import { isMissionId, missionExists, type Mission, type MissionState } from '@mission/issuer-domain';
import { NotFoundError } from '@mission/issuer-oauth';
import type { ClientPermission, ClientRegistration } from '../config/issuer-config.js';
import type { MissionLineage } from './mission-lineage.js';

/** A mission the caller may act on, with its ancestors (`[parent, …, root]`) read in the same request. */
export interface AccessibleMission {
  readonly mission: Mission;
  readonly ancestors: readonly MissionState[];
}

/**
 * DESIGN 2.1: a client with `permission` may act on missions it is the `client_id` of and on their
 * descendants (a Child Mission whose parent, grandparent, … it is the client of); a client with
 * `admin` on any mission. Access only flows down the lineage: a child actor gains nothing over its
 * parent. Unknown, malformed and not-authorized missions all get the same `404 not_found`, so the
 * endpoint is no existence oracle.
 *
 * The mission and its ancestors are read from their streams now (MissionLineage), so the caller can
 * report the lineage state (spec 3.2, 4.3) without a second read.
 */
export async function loadAccessibleMission(
  lineage: MissionLineage,
  missionId: string | undefined,
  client: ClientRegistration,
  permission: ClientPermission,
): Promise<AccessibleMission> {
  const isAdmin = client.permissions.includes('admin');
  if (!isAdmin && !client.permissions.includes(permission)) throw new NotFoundError();
  if (missionId === undefined || !isMissionId(missionId)) throw new NotFoundError();
  const mission = await lineage.mission(missionId);
  if (!missionExists(mission)) throw new NotFoundError();
  const ancestors = await lineage.ancestors(mission);
  if (!isAdmin && !mayAct(client.client_id, mission, ancestors)) throw new NotFoundError();
  return { mission, ancestors };
}

/**
 * The same entitlement without a permission check, for surfaces that answer everyone with the introspection
 * permission but show lineage only to those entitled to the mission (spec 5 rule 7).
 */
export function mayAccessMission(client: ClientRegistration, mission: Mission, ancestors: readonly MissionState[]): boolean {
  return client.permissions.includes('admin') || mayAct(client.client_id, mission, ancestors);
}

/** The client of the mission itself or of one of its (existing) ancestors. */
function mayAct(clientId: string, mission: Mission, ancestors: readonly MissionState[]): boolean {
  if (mission.clientId === clientId) return true;
  return ancestors.some((ancestor) => missionExists(ancestor) && ancestor.clientId === clientId);
}
