import { fold, given } from '@mission/decider';
import { MissionNotFoundError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { ADMIN, AFTER_EXPIRY, EXPIRES_AT, OTHER_AGENT, OWNING_AGENT, PERSON, T1, T2 } from '../testing/fixtures.js';
import { base, expiredBy, missionApproved, permit, revokedByAgent, terminate } from '../testing/mission.fixtures.js';
import type { ManagementCaller } from './management-caller.js';
import { missionDecider } from './mission.decider.js';
import type { MissionStatusRead } from './mission.events.js';
import { PS_SCHEDULER } from './mission.state.js';


const statusRead = (sequence: number, now: Date, caller: ManagementCaller, policy: string, extra: Partial<MissionStatusRead['data']> = {}): MissionStatusRead => ({
  type: 'MissionStatusRead',
  data: { ...base, sequence, occurred_at: now.toISOString(), actor: { id: caller.id, role: caller.role }, authorization: permit(policy), mission_status: 'active', ...extra },
});

/** Who may read a mission, and what every status and delegation_tree read records (spec 4.1, 4.3, 5.2–5.4, 5.9, 6). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('authorization (spec 5.2–5.4, 5.9, DESIGN 3.2)', () => {
    const callers: [string, ManagementCaller][] = [
      ['another agent (e.g. a sub-agent: parent_agent confers nothing)', { role: 'agent', id: OTHER_AGENT }],
      ['a person who does not own the agent', { ...PERSON, ownedAgents: [OTHER_AGENT] }],
      ['a person owning the agent in another tenant', { ...PERSON, tenant: 'tenant-2' }],
      ['an administrator of another tenant', { ...ADMIN, tenant: 'tenant-2' }],
    ];

    it.each(callers)('spec 5.9: %s gets mission_not_found, identical to an absent mission', (_, caller) => {
      let unauthorized: unknown;
      let absent: unknown;
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller, now: T1 })
        .thenThrows(MissionNotFoundError, (error) => (unauthorized = error));
      given(missionDecider)
        .when({ type: 'ReadMissionStatus', caller, now: T1 })
        .thenThrows(MissionNotFoundError, (error) => (absent = error));
      const shape = (error: unknown) => {
        const { code, status, message, members } = error as MissionNotFoundError;
        return { code, status, message, members };
      };
      expect(shape(unauthorized)).toEqual(shape(absent));
      expect(shape(absent)).toEqual({ code: 'mission_not_found', status: 404, message: 'mission not found', members: {} });
      expect(unauthorized).toMatchObject({ auditDetail: 'not_authorized' });
      expect(absent).toMatchObject({ auditDetail: 'absent' });
    });

    it('spec 5.9: an unauthorized terminate learns nothing either, not even the mission\'s state', () => {
      for (const [, caller] of callers) {
        given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ caller })).thenThrows(MissionNotFoundError);
        given(missionDecider, [missionApproved]).when(terminate({ caller, now: AFTER_EXPIRY })).thenThrows(MissionNotFoundError);
      }
    });
  });

  describe('status read (spec 4.1, spec 6)', () => {
    it.each([
      ['the owning agent', OWNING_AGENT, 'ps:owning-agent'],
      ['a person owning the agent', PERSON, 'ps:person-owns-agent'],
      ['an administrator of the tenant', ADMIN, 'ps:tenant-admin'],
    ] as const)('spec 6: every authorized status by %s appends MissionStatusRead with actor, role and policy', (_, caller, policy) => {
      const state = given(missionDecider, [missionApproved]).when({ type: 'ReadMissionStatus', caller, now: T1 }).then([statusRead(2, T1, caller, policy)]);
      expect(state).toMatchObject({ status: 'active', sequence: 2 });
    });

    it('spec 3 rule 1: a status read of a terminated mission reports terminated with the first reason', () => {
      given(missionDecider, [missionApproved, revokedByAgent])
        .when({ type: 'ReadMissionStatus', caller: PERSON, now: T2 })
        .then([statusRead(3, T2, PERSON, 'ps:person-owns-agent', { mission_status: 'terminated', termination_reason: 'revoked' })]);
    });

    it('spec 3: expiry first — a status read past expires_at first records MissionTerminated expired by the PS scheduler', () => {
      const state = given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller: OWNING_AGENT, now: AFTER_EXPIRY })
        .then([expiredBy(2, AFTER_EXPIRY), statusRead(3, AFTER_EXPIRY, OWNING_AGENT, 'ps:owning-agent', { mission_status: 'terminated', termination_reason: 'expired' })]);
      expect(state).toMatchObject({ status: 'terminated', termination: { reason: 'expired', terminatedAt: EXPIRES_AT, actor: PS_SCHEDULER } });
    });

    it('spec 3: expires_at itself is already past (now ≥ expires_at)', () => {
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadMissionStatus', caller: OWNING_AGENT, now: EXPIRES_AT })
        .then([expiredBy(2, EXPIRES_AT), statusRead(3, EXPIRES_AT, OWNING_AGENT, 'ps:owning-agent', { mission_status: 'terminated', termination_reason: 'expired' })]);
    });
  });

  describe('tree read (spec 4.3, spec 6)', () => {
    it('spec 6: every authorized delegation_tree page appends DelegationTreeRead', () => {
      given(missionDecider, [missionApproved])
        .when({ type: 'ReadDelegationTree', caller: PERSON, nodeCount: 3, complete: true, now: T1 })
        .then([
          {
            type: 'DelegationTreeRead',
            data: { ...base, sequence: 2, occurred_at: T1.toISOString(), actor: { id: 'alice', role: 'person' }, authorization: permit('ps:person-owns-agent'), node_count: 3, complete: true },
          },
        ]);
    });

    it('spec 3: expiry first applies to tree reads too; a tree read stays allowed after termination', () => {
      const events = missionDecider.decide({ type: 'ReadDelegationTree', caller: ADMIN, now: AFTER_EXPIRY }, fold(missionDecider, [missionApproved]));
      expect(events.map((event) => event.type)).toEqual(['MissionTerminated', 'DelegationTreeRead']);
    });

    it('refuses a malformed node count; an unauthorized caller gets mission_not_found', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ReadDelegationTree', caller: PERSON, nodeCount: -1, now: T1 }).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when({ type: 'ReadDelegationTree', caller: { role: 'agent', id: OTHER_AGENT }, now: T1 }).thenThrows(MissionNotFoundError);
    });
  });
});
