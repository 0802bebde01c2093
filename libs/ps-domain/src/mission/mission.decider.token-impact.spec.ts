import { fold, given } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AFTER_EXPIRY, AGENT, APPROVER, OTHER_REQUEST_ID, OTHER_S256, PERSON, T0, T1, T2 } from '../testing/fixtures.js';
import { base, expiredBy, missionApproved, revokedByAgent, terminate } from '../testing/mission.fixtures.js';
import { missionDecider } from './mission.decider.js';
import type { MissionEvent } from './mission.events.js';
import { trackedTokenDecider } from '../tokens/tracked-token.decider.js';
import { TOKEN_POLICIES, type TrackedTokenEvent } from '../tokens/tracked-token.events.js';

/** The token-impact summary on MissionTerminated (spec 2.8, ADR 0013). */
describe('Mission aggregate (psmission-<s256>, spec 2.8, 3, 6)', () => {
  describe('token-impact summary (spec 2.8, ADR 0013)', () => {
    const EXP_EARLY = '2026-11-22T10:05:00.000Z';
    const EXP_LATE = '2026-11-22T10:30:00.000Z';
    const tokenLog = (sequence: number) => ({ ...base, sequence, occurred_at: T0.toISOString(), actor: { id: AGENT, role: 'agent' as const }, authorization: { decision: 'permit' as const, policy: TOKEN_POLICIES.owningAgent } });
    const issued = (sequence: number, jti: string, exp: string): TrackedTokenEvent => ({
      type: 'AuthTokenIssued',
      data: { ...tokenLog(sequence), iss: APPROVER, jti, aud: 'https://files.example', exp, issued_at: T0.toISOString(), origin: 'issued', agent: AGENT, relationship: 'root' },
    });
    // Three tokens handed out, one withheld (never left the PS): t-1 expires before T1, t-2 and t-3 after.
    const tokens = fold(trackedTokenDecider, [
      issued(1, 't-1', T1.toISOString()),
      issued(2, 't-2', EXP_EARLY),
      issued(3, 't-3', EXP_LATE),
      issued(4, 't-w', EXP_LATE),
      { type: 'AuthTokenWithheld', data: { ...tokenLog(5), iss: APPROVER, jti: 't-w', reason: 'mission_terminated' } },
    ]);

    it('spec 2.8: MissionTerminated carries token_impact — tracked, to_revoke (unexpired, unconfirmed), residual_until, tokens_sequence', () => {
      given(missionDecider, [missionApproved])
        .when(terminate({ trackedTokens: tokens }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 3, to_revoke: 2, residual_until: EXP_LATE, tokens_sequence: 5 } } }]);
    });

    it('spec 2.8: a mission without tokens has an empty token impact (no residual_until)', () => {
      given(missionDecider, [missionApproved])
        .when(terminate({ trackedTokens: trackedTokenDecider.initialState }))
        .then([{ type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 0, to_revoke: 0, tokens_sequence: 0 } } }]);
    });

    it('spec 2.8, 3: an expiry recorded first (by any path) carries the token impact at the instant it is recorded', () => {
      // Auth Tokens never outlive the mission (DESIGN 3.1), so at expiry nothing is left to revoke.
      given(missionDecider, [missionApproved])
        .when({ type: 'ApplyMissionExpiry', now: AFTER_EXPIRY, trackedTokens: tokens })
        .then([{ type: 'MissionTerminated', data: { ...expiredBy(2, AFTER_EXPIRY).data, token_impact: { tracked: 3, to_revoke: 0, tokens_sequence: 5 } } }]);
      const events = missionDecider.decide({ type: 'ReadMissionStatus', caller: PERSON, now: AFTER_EXPIRY, trackedTokens: tokens }, fold(missionDecider, [missionApproved]));
      expect(events.map((event) => [event.type, (event.data as { token_impact?: unknown }).token_impact])).toEqual([
        ['MissionTerminated', { tracked: 3, to_revoke: 0, tokens_sequence: 5 }],
        ['MissionStatusRead', undefined],
      ]);
    });

    it('spec 2.8, 3: a late terminate changes no token and carries no token impact; the first one stands', () => {
      const history = [missionApproved, { type: 'MissionTerminated', data: { ...revokedByAgent.data, token_impact: { tracked: 3, to_revoke: 2, residual_until: EXP_LATE, tokens_sequence: 5 } } } as MissionEvent];
      const late = missionDecider.decide(terminate({ caller: PERSON, requestId: OTHER_REQUEST_ID, now: T2, trackedTokens: tokens }), fold(missionDecider, history));
      expect(late.map((event) => event.type)).toEqual(['LateTerminationRequested']);
      expect(late[0]!.data).not.toHaveProperty('token_impact');
    });

    it('spec 2.8: without the tokens in the command the event has no token_impact (the application always passes them)', () => {
      given(missionDecider, [missionApproved]).when(terminate()).then([revokedByAgent]);
    });

    it('refuses token records of another mission as a bug at the caller', () => {
      const foreign = fold(trackedTokenDecider, [{ ...issued(1, 't-1', EXP_LATE), data: { ...issued(1, 't-1', EXP_LATE).data, mission_s256: OTHER_S256 } } as TrackedTokenEvent]);
      given(missionDecider, [missionApproved]).when(terminate({ trackedTokens: foreign })).thenThrows(InvalidCommandError);
      given(missionDecider, [missionApproved]).when(terminate({ trackedTokens: { sequence: -1, tokens: new Map() } })).thenThrows(InvalidCommandError);
    });

    it('spec 2.8: the summary names tokens by count only — no token identifiers, no raw tokens', () => {
      const [event] = missionDecider.decide(terminate({ trackedTokens: tokens }), fold(missionDecider, [missionApproved]));
      expect(JSON.stringify(event)).not.toMatch(/t-1|t-2|t-3|t-w/);
    });
  });
});
