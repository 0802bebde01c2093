import { fold } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, APPROVER, MISSION_S256, OTHER_S256, T0, T1, at } from '../testing/fixtures.js';
import { assertTrackedTokensOf, tokenImpactSummary } from './token-impact.js';
import { PS_REVOCATION, trackedTokenDecider } from './tracked-token.decider.js';
import { TOKEN_POLICIES, type TokenPolicy, type TrackedTokenEvent } from './tracked-token.events.js';

const EXP_1 = '2026-11-22T10:05:00.000Z';
const EXP_2 = '2026-11-22T10:30:00.000Z';
let sequence = 0;
const log = (policy: TokenPolicy = TOKEN_POLICIES.owningAgent) => ({
  approver: APPROVER,
  mission_s256: MISSION_S256,
  sequence: ++sequence,
  occurred_at: T0.toISOString(),
  actor: policy === TOKEN_POLICIES.revocation ? PS_REVOCATION : { id: AGENT, role: 'agent' as const },
  authorization: { decision: 'permit' as const, policy },
});
const issued = (jti: string, extra: Record<string, unknown> = {}): TrackedTokenEvent =>
  ({ type: 'AuthTokenIssued', data: { ...log(), iss: APPROVER, jti, aud: 'https://files.example', exp: EXP_1, issued_at: T0.toISOString(), origin: 'issued', agent: AGENT, relationship: 'root', ...extra } }) as TrackedTokenEvent;

describe('spec 2.8: token-impact summary of a termination', () => {
  beforeEach(() => {
    sequence = 0;
  });

  it('spec 2.8, 4.4 rule 1: counts handed-out tokens and those still to revoke; residual_until is the latest exp among them', () => {
    const state = fold(trackedTokenDecider, [issued('a'), issued('b', { exp: EXP_2 }), issued('old', { exp: T1.toISOString() })]);
    expect(tokenImpactSummary(state, T1)).toEqual({ tracked: 3, to_revoke: 2, residual_until: EXP_2, tokens_sequence: 3 });
  });

  it('spec 2.8, 3 rule 3: a withheld token never left the PS and is no impact; a confirmed one needs no revocation', () => {
    const state = fold(trackedTokenDecider, [
      issued('a'),
      issued('w', { exp: EXP_2 }),
      { type: 'AuthTokenWithheld', data: { ...log(), iss: APPROVER, jti: 'w', reason: 'mission_terminated' } },
      { type: 'TokenRevocationAttempted', data: { ...log(TOKEN_POLICIES.revocation), iss: APPROVER, jti: 'a', attempt: 1 } },
      { type: 'TokenRevocationConfirmed', data: { ...log(TOKEN_POLICIES.revocation), iss: APPROVER, jti: 'a', attempt: 1, http_status: 200 } },
    ]);
    expect(tokenImpactSummary(state, T0)).toEqual({ tracked: 1, to_revoke: 0, tokens_sequence: 5 });
  });

  it('spec 4.4 rule 5: a token of unknown expiry makes the impact unbounded (no residual_until)', () => {
    const state = fold(trackedTokenDecider, [issued('a'), issued('f', { iss: 'https://as.example', origin: 'federated', exp: undefined })]);
    expect(tokenImpactSummary(state, T0)).toEqual({ tracked: 2, to_revoke: 2, residual_unbounded: true, tokens_sequence: 2 });
  });

  it('spec 4.4 rule 3: at or after every exp nothing is left to revoke', () => {
    const state = fold(trackedTokenDecider, [issued('a'), issued('b', { exp: EXP_2 })]);
    expect(tokenImpactSummary(state, at(EXP_2))).toEqual({ tracked: 2, to_revoke: 0, tokens_sequence: 2 });
  });

  it('refuses token records of another mission or of the wrong shape', () => {
    const state = fold(trackedTokenDecider, [issued('a')]);
    expect(() => assertTrackedTokensOf(state, MISSION_S256)).not.toThrow();
    expect(() => assertTrackedTokensOf(trackedTokenDecider.initialState, OTHER_S256)).not.toThrow();
    expect(() => assertTrackedTokensOf(state, OTHER_S256)).toThrow(InvalidCommandError);
    expect(() => assertTrackedTokensOf({ sequence: 0, tokens: {} } as never, MISSION_S256)).toThrow(InvalidCommandError);
  });
});
