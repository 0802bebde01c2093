import { fold, given } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, at, MISSION_S256, OTHER_AGENT, T0, T1, TENANT, without } from '../testing/fixtures.js';
import { approve, missionApproved, revokedByAgent } from '../testing/mission.fixtures.js';
import { missionDecider } from './mission.decider.js';
import { effectiveState } from './mission.state.js';
import { blobStreamName, missionStreamName, tokensStreamName } from './mission-streams.js';

/** The Mission aggregate's stream names and its approval (spec 1.3, 2.1, 3 rule 1). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('streams (DESIGN 1)', () => {
    it('DESIGN 1: psmission-, psblob-, pstokens- followed by the digest; anything else is refused', () => {
      expect(missionStreamName(MISSION_S256)).toBe(`psmission-${MISSION_S256}`);
      expect(blobStreamName(MISSION_S256)).toBe(`psblob-${MISSION_S256}`);
      expect(tokensStreamName(MISSION_S256)).toBe(`pstokens-${MISSION_S256}`);
      expect(() => missionStreamName('../x')).toThrow(InvalidCommandError);
    });
  });

  describe('ApproveMission', () => {
    it('spec 1.3: records MissionApproved at sequence 1; the mission is active', () => {
      const state = given(missionDecider).when(approve()).then([missionApproved]);
      expect(state).toMatchObject({ status: 'active', sequence: 1, agent: AGENT, tenant: TENANT });
      expect(effectiveState(state, T1)).toBe('active');
    });

    it('spec 2.1 rule 5: a mission without expires_at records none and never expires', () => {
      const state = given(missionDecider)
        .when(approve({ expiresAt: undefined as never }))
        .then([{ type: 'MissionApproved', data: without(missionApproved.data, 'expires_at') }]);
      expect(effectiveState(state, at('2100-01-01T00:00:00Z'))).toBe('active');
    });

    it('a retry of the same approval decides nothing; a different one is refused', () => {
      given(missionDecider, [missionApproved]).when(approve()).thenNothingHappens();
      given(missionDecider, [missionApproved]).when(approve({ agent: OTHER_AGENT })).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when(approve({ now: T1 })).thenThrows(InvalidCommandError);
    });

    it('spec 3 rule 1: approving again never returns a terminated mission to active', () => {
      given(missionDecider, [missionApproved, revokedByAgent]).when(approve()).thenNothingHappens();
      expect(fold(missionDecider, [missionApproved, revokedByAgent, missionApproved])).toMatchObject({ status: 'terminated', termination: { reason: 'revoked' } });
      given(missionDecider, [missionApproved, revokedByAgent]).when(approve({ approvedBy: 'bob' })).thenThrows(InvalidCommandError);
    });

    it.each([
      ['a malformed digest', { missionS256: 'abc' }],
      ['an empty agent', { agent: '' }],
      ['an empty tenant', { tenant: '' }],
      ['expires_at not after now', { expiresAt: T0 }],
      ['an invalid now', { now: new Date(Number.NaN) }],
    ])('refuses %s', (_, change) => {
      given(missionDecider).when(approve(change)).thenThrows(InvalidCommandError);
    });
  });
});
