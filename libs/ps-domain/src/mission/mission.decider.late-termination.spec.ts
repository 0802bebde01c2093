import { fold, given } from '@mission/decider';
import { InvalidTerminationReasonError } from '../errors/management.errors.js';
import { ADMIN, AFTER_EXPIRY, AGENT, at, EXPIRES_AT, OTHER_REQUEST_ID, PERSON, REQUEST_ID, T1, T2 } from '../testing/fixtures.js';
import { base, expiredBy, missionApproved, permit, revokedByAgent, terminate } from '../testing/mission.fixtures.js';
import { missionDecider } from './mission.decider.js';
import type { LateTerminationRequested, MissionEvent, MissionTerminated } from './mission.events.js';
import { PS_SCHEDULER } from './mission.state.js';

/** The first committed transition wins; every later terminate is a LateTerminationRequested (spec 3, 4.2 rule 2). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('first committed transition wins, late termination (spec 3)', () => {
    it('spec 3 rule 2: a later authorized terminate records LateTerminationRequested; the first reason and timestamp stand', () => {
      const late: LateTerminationRequested = {
        type: 'LateTerminationRequested',
        data: {
          ...base,
          sequence: 3,
          occurred_at: T2.toISOString(),
          actor: { id: 'ops-1', role: 'admin' },
          authorization: permit('ps:tenant-admin'),
          requested_reason: 'administrative',
          request_id: OTHER_REQUEST_ID,
          purpose: 'incident INC-42',
          termination_reason: 'revoked',
          terminated_at: T1.toISOString(),
        },
      };
      const state = given(missionDecider, [missionApproved, revokedByAgent])
        .when(terminate({ caller: ADMIN, reason: 'administrative', purpose: 'incident INC-42', requestId: OTHER_REQUEST_ID, now: T2 }))
        .then([late]);
      expect(state).toMatchObject({ status: 'terminated', sequence: 3, termination: { reason: 'revoked', terminatedAt: T1, actor: { id: AGENT, role: 'agent' } } });
    });

    it('spec 3 rule 2: the loser of a race observes an idempotent outcome (both decided over the same active state, the second re-decides)', () => {
      // Both read sequence 1; the first append wins, the second is re-decided on fresh state (expected revision).
      const first = missionDecider.decide(terminate({ caller: PERSON, reason: 'completed' }), fold(missionDecider, [missionApproved]));
      const second = missionDecider.decide(terminate({ requestId: OTHER_REQUEST_ID, now: T2 }), fold(missionDecider, [missionApproved, ...first]));
      expect(second.map((event) => event.type)).toEqual(['LateTerminationRequested']);
      expect(second[0]!.data).toMatchObject({ termination_reason: 'completed', terminated_at: T1.toISOString(), requested_reason: 'revoked' });
    });

    it('spec 3 rule 2: a stored second MissionTerminated could never overwrite the first', () => {
      const second: MissionTerminated = { type: 'MissionTerminated', data: { ...revokedByAgent.data, sequence: 3, reason: 'completed', terminated_at: T2.toISOString() } };
      expect(fold(missionDecider, [missionApproved, revokedByAgent, second])).toMatchObject({ termination: { reason: 'revoked', terminatedAt: T1 }, sequence: 3 });
    });

    it('spec 3: a terminate past expires_at first records the expiry, then is a late request (expiry obeys the same rule)', () => {
      const state = given(missionDecider, [missionApproved])
        .when(terminate({ now: AFTER_EXPIRY }))
        .then([
          expiredBy(2, AFTER_EXPIRY),
          {
            type: 'LateTerminationRequested',
            data: {
              ...base,
              sequence: 3,
              occurred_at: AFTER_EXPIRY.toISOString(),
              actor: { id: AGENT, role: 'agent' },
              authorization: permit('ps:owning-agent'),
              requested_reason: 'revoked',
              request_id: REQUEST_ID,
              termination_reason: 'expired',
              terminated_at: EXPIRES_AT.toISOString(),
            },
          },
        ]);
      expect(state).toMatchObject({ status: 'terminated', termination: { reason: 'expired', actor: PS_SCHEDULER } });
    });

    it('spec 3: a terminate just before expires_at wins over the expiry', () => {
      const justBefore = at('2026-11-22T16:59:59.999Z');
      const state = given(missionDecider, [missionApproved])
        .when(terminate({ now: justBefore }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, occurred_at: justBefore.toISOString(), terminated_at: justBefore.toISOString() } }]);
      given(missionDecider, [missionApproved, ...[{ type: 'MissionTerminated', data: { ...revokedByAgent.data, occurred_at: justBefore.toISOString(), terminated_at: justBefore.toISOString() } } as MissionEvent]])
        .when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY })
        .thenNothingHappens();
      expect(state).toMatchObject({ termination: { reason: 'revoked' } });
    });

    it('spec 4.2 rule 2: repeating the terminating request (same caller, same request_id) decides nothing', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ now: T2 })).thenNothingHappens();
    });

    it('spec 4.2 rule 2: repeating a late request decides nothing; the same request_id from another caller is its own request', () => {
      const history = [missionApproved, expiredBy(2, AFTER_EXPIRY)];
      const late = missionDecider.decide(terminate({ now: AFTER_EXPIRY }), fold(missionDecider, history));
      given(missionDecider, [...history, ...late]).when(terminate({ now: AFTER_EXPIRY })).thenNothingHappens();
      const other = missionDecider.decide(terminate({ caller: PERSON, now: AFTER_EXPIRY }), fold(missionDecider, [...history, ...late]));
      expect(other.map((event) => [event.type, event.data.sequence])).toEqual([['LateTerminationRequested', 4]]);
    });

    it('spec 4.2: an invalid reason is refused even after termination (checks precede the state)', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(terminate({ reason: 'completed', requestId: OTHER_REQUEST_ID })).thenThrows(InvalidTerminationReasonError);
    });
  });
});
