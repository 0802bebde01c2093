import { fold } from '@mission/decider';
import { ADMIN, AFTER_EXPIRY, APPROVER, MISSION_S256, OTHER_REQUEST_ID, OWNING_AGENT, PERSON, T1 } from '../testing/fixtures.js';
import { approve, terminate } from '../testing/mission.fixtures.js';
import { missionDecider } from './mission.decider.js';
import type { MissionEvent } from './mission.events.js';
import type { MissionState } from './mission.state.js';

/** What the mission log holds over a whole life of a mission (spec 2.8). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('mission log (spec 2.8)', () => {
    function run(commands: Parameters<typeof missionDecider.decide>[0][]): { events: MissionEvent[]; state: MissionState } {
      const events: MissionEvent[] = [];
      for (const command of commands) {
        for (const event of missionDecider.decide(command, fold(missionDecider, events))) {
          const text = JSON.stringify(event);
          expect(JSON.parse(text)).toEqual(event);
          events.push(JSON.parse(text) as MissionEvent);
        }
      }
      return { events, state: fold(missionDecider, events) };
    }

    const { events } = run([
      approve(),
      { type: 'ReadMissionStatus', caller: OWNING_AGENT, now: T1 },
      { type: 'ReadDelegationTree', caller: PERSON, nodeCount: 1, complete: true, now: T1 },
      { type: 'ReadMissionStatus', caller: ADMIN, now: AFTER_EXPIRY },
      terminate({ caller: PERSON, reason: 'completed', now: AFTER_EXPIRY }),
      terminate({ caller: PERSON, reason: 'completed', now: AFTER_EXPIRY }),
      terminate({ caller: ADMIN, reason: 'revoked', purpose: 'cleanup', requestId: OTHER_REQUEST_ID, now: AFTER_EXPIRY }),
      { type: 'ReadMissionStatus', caller: PERSON, now: AFTER_EXPIRY },
    ]);

    it('spec 2.8: sequences are 1, 2, 3, … strictly increasing without gaps', () => {
      expect(events.map((event) => event.data.sequence)).toEqual(events.map((_, index) => index + 1));
      expect(events.map((event) => event.type)).toEqual([
        'MissionApproved',
        'MissionStatusRead',
        'DelegationTreeRead',
        'MissionTerminated',
        'MissionStatusRead',
        'LateTerminationRequested',
        'LateTerminationRequested',
        'MissionStatusRead',
      ]);
    });

    it('spec 2.8: every event carries the Mission Reference, time, actor with role and the authorization policy', () => {
      for (const { data } of events) {
        expect(data).toMatchObject({ approver: APPROVER, mission_s256: MISSION_S256, occurred_at: expect.any(String), actor: { id: expect.any(String), role: expect.any(String) } });
        expect(data.authorization).toEqual({ decision: 'permit', policy: expect.stringMatching(/^ps:/) });
      }
    });

    it('spec 2.8: the log holds no blob, keys or tokens', () => {
      const text = JSON.stringify(events);
      for (const forbidden of ['description', 'approved_tools', 'approved_resources', 'jwk', 'token', 'jkt']) expect(text).not.toContain(forbidden);
    });
  });
});
