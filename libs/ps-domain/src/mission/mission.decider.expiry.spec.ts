import { fold, given } from '@mission/decider';
import { MissionNotFoundError, MissionTerminatedError } from '../errors/management.errors.js';
import { AFTER_EXPIRY, at, EXPIRES_AT, T1, T2, without } from '../testing/fixtures.js';
import { expiredBy, missionApproved, revokedByAgent } from '../testing/mission.fixtures.js';
import { missionDecider } from './mission.decider.js';
import { assertMissionActive, effectiveState } from './mission.state.js';

/** Expiry by the PS scheduler and the effective state of a mission (spec 3). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('applyExpiry (spec 3, expiry process manager)', () => {
    it('spec 3: records MissionTerminated expired attributed to the PS scheduler once expires_at is reached', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY }).then([expiredBy(2, AFTER_EXPIRY)]);
    });

    it('spec 3: decides nothing before expires_at, after termination, or for a mission without expires_at', () => {
      given(missionDecider, [missionApproved]).when({ type: 'ApplyMissionExpiry', now: T1 }).thenNothingHappens();
      given(missionDecider, [missionApproved, expiredBy(2, AFTER_EXPIRY)]).when({ type: 'ApplyMissionExpiry', now: T2 }).thenNothingHappens();
      given(missionDecider, [missionApproved, revokedByAgent]).when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY }).thenNothingHappens();
      given(missionDecider, [{ type: 'MissionApproved', data: without(missionApproved.data, 'expires_at') }]).when({ type: 'ApplyMissionExpiry', now: at('2100-01-01T00:00:00Z') }).thenNothingHappens();
    });

    it('refuses on a missing mission', () => {
      given(missionDecider).when({ type: 'ApplyMissionExpiry', now: T1 }).thenThrows(MissionNotFoundError);
    });
  });

  describe('effectiveState (spec 3)', () => {
    it('spec 3: expiry before stored state; terminated never becomes active', () => {
      const active = fold(missionDecider, [missionApproved]);
      expect(effectiveState(active, at('2026-11-22T16:59:59.999Z'))).toBe('active');
      expect(effectiveState(active, EXPIRES_AT)).toBe('terminated');
      expect(effectiveState(fold(missionDecider, [missionApproved, revokedByAgent]), T2)).toBe('terminated');
      expect(() => effectiveState(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });

    it('spec 3 rule 3: assertMissionActive gives mission_terminated with the reason (also for a due, unrecorded expiry)', () => {
      const active = fold(missionDecider, [missionApproved]);
      expect(assertMissionActive(active, T1)).toBe(active);
      for (const [state, now, reason] of [
        [active, AFTER_EXPIRY, 'expired'],
        [fold(missionDecider, [missionApproved, revokedByAgent]), T2, 'revoked'],
      ] as const) {
        try {
          assertMissionActive(state, now);
          throw new Error('not refused');
        } catch (error) {
          expect(error).toBeInstanceOf(MissionTerminatedError);
          expect(error).toMatchObject({ code: 'mission_terminated', status: 403, members: { mission_status: 'terminated', termination_reason: reason } });
        }
      }
      expect(() => assertMissionActive(missionDecider.initialState, T1)).toThrow(MissionNotFoundError);
    });
  });
});
