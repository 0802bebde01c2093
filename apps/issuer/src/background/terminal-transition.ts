import type { RecordedEvent } from '@mission/event-store';
import { isTerminalMissionState, MISSION_LIFECYCLE_STATES, type MissionLifecycleState, type TerminalMissionState } from '@mission/issuer-domain';

/** What the children process managers need from a terminal lifecycle transition of a mission. */
export interface TerminalTransition {
  readonly type: string;
  readonly missionId: string;
  readonly state: TerminalMissionState;
  /** Domain time of the transition (the issuer clock's, not the store's). */
  readonly occurredAt: Date;
  /** Set when the mission is a Child Mission. */
  readonly parentId?: string;
  /** Non-terminal attached children when the transition committed (0 when absent). */
  readonly openChildren: number;
}

/** Events on a mission stream that are not lifecycle transitions of that mission (their `state` is a child's). */
const NOT_TRANSITIONS: ReadonlySet<string> = new Set(['MissionCreated', 'ChildMissionAttached', 'ChildMissionDetached']);

/**
 * A terminal lifecycle transition of the mission whose stream the event is on — MissionRevoked,
 * MissionCompleted, MissionExpired, MissionCascaded, and any later transition type whose `data.state`
 * is terminal (e.g. `superseded`) — or `undefined`. Pure: process managers plan with it.
 */
export function terminalTransition(event: RecordedEvent): TerminalTransition | undefined {
  if (NOT_TRANSITIONS.has(event.type)) return undefined;
  const data = event.data;
  const state = data['state'];
  const missionId = data['mission_id'];
  if (typeof missionId !== 'string' || typeof state !== 'string' || typeof data['version'] !== 'number') return undefined;
  if (!(MISSION_LIFECYCLE_STATES as readonly string[]).includes(state) || !isTerminalMissionState(state as MissionLifecycleState)) return undefined;
  const occurred = typeof data['occurred_at'] === 'string' ? new Date(data['occurred_at']) : event.created;
  const parentId = data['parent_id'];
  const open = data['open_children'];
  return {
    type: event.type,
    missionId,
    state: state as TerminalMissionState,
    occurredAt: Number.isNaN(occurred.getTime()) ? event.created : occurred,
    ...(typeof parentId === 'string' ? { parentId } : {}),
    openChildren: typeof open === 'number' && Number.isSafeInteger(open) && open > 0 ? open : 0,
  };
}
