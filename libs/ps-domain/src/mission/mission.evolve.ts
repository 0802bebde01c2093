import { Set as PersistentSet } from 'immutable';
import { actorData } from '../shared/actor.js';
import type { MissionApprovedData, MissionEvent } from './mission.events.js';
import { missionExists, requestKey, type Mission, type MissionState } from './mission.state.js';

/** The fold of `psmission-<s256>` (spec 3: terminated never becomes active; the first termination stands). */
export function evolveMission(state: MissionState, event: MissionEvent): MissionState {
  if (event.type === 'MissionApproved') {
    // Approval happens once; a replayed approval never resets the state (terminated never becomes active).
    return missionExists(state) ? { ...state, sequence: Math.max(state.sequence, event.data.sequence) } : approved(event.data);
  }
  if (!missionExists(state)) return state;
  const data = event.data;
  const sequence = Math.max(state.sequence, data.sequence);
  switch (event.type) {
    case 'MissionTerminated': {
      const requestKeys = event.data.request_id !== undefined ? withRequestKey(state.requestKeys, requestKey(data.actor, event.data.request_id)) : state.requestKeys;
      // Terminated never becomes active, and the first termination is never overwritten (spec 3).
      if (state.status === 'terminated') return { ...state, sequence, requestKeys };
      const termination = {
        reason: event.data.reason,
        terminatedAt: new Date(event.data.terminated_at),
        actor: actorData(data.actor),
        ...(event.data.request_id !== undefined ? { requestId: event.data.request_id } : {}),
        ...(event.data.replacement_s256 !== undefined ? { replacementS256: event.data.replacement_s256 } : {}),
      };
      return { ...state, status: 'terminated', termination, sequence, requestKeys };
    }
    case 'LateTerminationRequested':
      return { ...state, sequence, requestKeys: withRequestKey(state.requestKeys, requestKey(data.actor, event.data.request_id)) };
    case 'MissionBlobDeleted':
      // The first deletion stands (spec 3 rule 5: the tombstone); the state stays terminated.
      return state.blobDeleted !== undefined ? { ...state, sequence } : { ...state, sequence, blobDeleted: { at: new Date(data.occurred_at), actor: actorData(data.actor) } };
    default:
      return { ...state, sequence };
  }
}

export function approved(data: MissionApprovedData): Mission {
  return {
    status: 'active',
    approver: data.approver,
    missionS256: data.mission_s256,
    agent: data.agent,
    approvedBy: data.approved_by,
    tenant: data.tenant,
    approvedAt: new Date(data.approved_at),
    ...(data.expires_at !== undefined ? { expiresAt: new Date(data.expires_at) } : {}),
    ...(data.pending_id !== undefined ? { pendingId: data.pending_id } : {}),
    sequence: data.sequence,
    requestKeys: NO_REQUEST_KEYS,
  };
}

/**
 * Request keys of terminate requests logged after termination: a persistent set, so each one adds a key in O(log n)
 * and shares the rest with the previous state. Copying a plain Set per request made folding a mission after n late
 * terminate requests O(n²) (ADR 0080, as for the issuer's children). A state decoded or built with a plain Set is
 * accepted and converted on its first change.
 */
const NO_REQUEST_KEYS: PersistentSet<string> = PersistentSet<string>();

function withRequestKey(keys: ReadonlySet<string>, key: string): PersistentSet<string> {
  return (PersistentSet.isSet(keys) ? (keys as PersistentSet<string>) : PersistentSet(keys)).add(key);
}
