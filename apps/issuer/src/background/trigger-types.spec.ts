import type { EventStore, JsonObject, RecordedEvent } from '@mission/event-store';
import type { ProcessManager } from '@mission/es-kit';
import { MISSION_EVENT_TYPES } from '@mission/issuer-domain';
import { childGrantLapseManager } from './child-grant-lapse.process-manager.js';
import { missionExpiryManager } from './mission-expiry.process-manager.js';
import type { MissionLineage } from '../lineage/mission-lineage.js';

const unused = {} as EventStore;
const clock = () => new Date('2026-11-26T12:00:00Z');

/** An event of `type` on a mission stream carrying every field the planners read. */
function missionEvent(type: string): RecordedEvent {
  const data: JsonObject = {
    mission_id: 'msn_parent', expires_at: '2026-12-26T12:00:00.000Z',
    child_mission_id: 'msn_child', grant_id: 'grt_child', grant_expires_at: '2026-11-26T12:10:00.000Z',
    state: 'revoked', version: 2, occurred_at: '2026-11-26T12:00:00.000Z', open_children: 0,
  };
  return { streamName: 'mission-msn_parent', revision: 0n, position: { commit: 1n, prepare: 1n }, id: `id-${type}`, type, data, metadata: {}, created: clock() };
}

const managers: Array<[ProcessManager, string[]]> = [
  [missionExpiryManager(unused, clock, {} as MissionLineage), ['MissionCreated']],
  [childGrantLapseManager(unused, clock), ['ChildMissionAttached']],
];

describe('process managers read only the mission events they plan from (issue 15 item 6, ADR 0055)', () => {
  it.each(managers.map(([manager, types]) => [manager.name, manager, types] as const))('%s names its trigger types, and plans nothing from any other mission event', (_name, manager, types) => {
    // The store filters on these types: a start reads the creations or attachments, not the whole category.
    expect(manager.triggerTypes).toEqual(types);
    for (const type of MISSION_EVENT_TYPES) {
      const planned = manager.plan(missionEvent(type)).length > 0;
      // Never a trigger the filter would hide from plan.
      expect([type, planned]).toEqual([type, types.includes(type)]);
    }
  });
});
