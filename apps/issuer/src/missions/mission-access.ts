import type { EventStore } from '@mission/event-store';
import { aggregateStream } from '@mission/es-kit';
import { isMissionId, missionDecider, missionExists, missionStreamName, type Mission } from '@mission/issuer-domain';
import { NotFoundError } from '@mission/issuer-oauth';
import type { ClientPermission, ClientRegistration } from '../config/issuer-config.js';

/**
 * DESIGN 2.1: a client with `permission` may act on missions it is the `client_id` of (and, with Child
 * Missions, their descendants); a client with `admin` on any mission. Unknown, malformed and
 * not-authorized missions all get the same `404 not_found` so the endpoint is no existence oracle.
 */
export async function loadAccessibleMission(
  store: EventStore,
  missionId: string | undefined,
  client: ClientRegistration,
  permission: ClientPermission,
): Promise<Mission> {
  const isAdmin = client.permissions.includes('admin');
  if (!isAdmin && !client.permissions.includes(permission)) throw new NotFoundError();
  if (missionId === undefined || !isMissionId(missionId)) throw new NotFoundError();
  const { state } = await aggregateStream(store, missionStreamName(missionId), missionDecider);
  if (!missionExists(state)) throw new NotFoundError();
  if (!isAdmin && state.clientId !== client.client_id) throw new NotFoundError();
  return state;
}
