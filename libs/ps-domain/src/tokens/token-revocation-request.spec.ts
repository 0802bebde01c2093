import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, APPROVER, MISSION_S256, T0, T1, T2 } from '../testing/fixtures.js';
import { trackedTokenDecider } from './tracked-token.decider.js';
import { TOKEN_POLICIES, type TokenRevoker, type TrackedTokenEvent } from './tracked-token.events.js';
import { revocationCandidates, tokenKey } from './tracked-token.state.js';
import { tokenResidual } from './token-residual.js';
import type { RevokeToken } from './tracked-token.commands.js';

const RESOURCE = 'https://files.example';
const EXP = new Date(T2.getTime() + 3_600_000);
const identity = { iss: APPROVER, jti: 'jti-1' };

const issued: TrackedTokenEvent = {
  type: 'AuthTokenIssued',
  data: {
    approver: APPROVER,
    mission_s256: MISSION_S256,
    sequence: 1,
    occurred_at: T0.toISOString(),
    actor: { id: AGENT, role: 'agent' },
    authorization: { decision: 'permit', policy: TOKEN_POLICIES.owningAgent },
    ...identity,
    aud: RESOURCE,
    exp: EXP.toISOString(),
    issued_at: T0.toISOString(),
    origin: 'issued',
    agent: AGENT,
    relationship: 'root',
  },
};

const revoke = (by: TokenRevoker, now = T1): RevokeToken => ({
  type: 'RevokeToken',
  token: identity,
  by,
  actor: by === 'holder' ? { id: AGENT, role: 'agent' } : { id: RESOURCE, role: 'resource' },
  now,
});

const stateAfter = (events: TrackedTokenEvent[]) => events.reduce(trackedTokenDecider.evolve, trackedTokenDecider.initialState);
const decide = (history: TrackedTokenEvent[], command: RevokeToken): TrackedTokenEvent[] => trackedTokenDecider.decide(command, stateAfter(history));

describe('AuthTokenRevoked (DESIGN 3.1 revocation endpoint, spec 2.6, 4.4, 6; ADR 0016)', () => {
  it('DESIGN 3.1, spec 6: the holder\'s revocation is an event of the mission log naming (iss, jti), revoker, actor and policy', () => {
    const [event] = decide([issued], revoke('holder'));
    expect(event).toEqual({
      type: 'AuthTokenRevoked',
      data: {
        approver: APPROVER,
        mission_s256: MISSION_S256,
        sequence: 2,
        occurred_at: T1.toISOString(),
        actor: { id: AGENT, role: 'agent' },
        authorization: { decision: 'permit', policy: TOKEN_POLICIES.revocationRequest },
        ...identity,
        revoked_by: 'holder',
      },
    });
  });

  it('spec 4.4 rule 3: revoked by its audience the token counts as confirmed and is no longer a revocation candidate', () => {
    const events = [issued, ...decide([issued], revoke('audience'))];
    const state = stateAfter(events);
    expect(state.tokens.get(tokenKey(identity))).toMatchObject({ revokedBy: 'audience', confirmedAt: T1 });
    expect(revocationCandidates(state, T1)).toEqual([]);
    expect(tokenResidual(state, T1, { untrackedAccessModes: false })).toEqual({ tracked: 1, revocation_attempted: 0, revocation_confirmed: 1, complete: true });
  });

  it('spec 4.4 rule 4: revoked by its holder only local state changed — the token stays unconfirmed and a revocation candidate', () => {
    const events = [issued, ...decide([issued], revoke('holder'))];
    const state = stateAfter(events);
    expect(state.tokens.get(tokenKey(identity))).toMatchObject({ revokedBy: 'holder' });
    expect(state.tokens.get(tokenKey(identity))!.confirmedAt).toBeUndefined();
    expect(revocationCandidates(state, T1)).toHaveLength(1);
    expect(tokenResidual(state, T1, { untrackedAccessModes: false })).toEqual({ tracked: 1, revocation_attempted: 0, revocation_confirmed: 0, residual_until: EXP.toISOString(), complete: false });
  });

  it('a repeat records nothing; the audience after the holder still confirms; the holder after the audience records nothing', () => {
    const byHolder = decide([issued], revoke('holder'));
    expect(decide([issued, ...byHolder], revoke('holder', T2))).toEqual([]);
    const byAudience = decide([issued, ...byHolder], revoke('audience', T2));
    expect(byAudience.map((event) => event.data)).toEqual([expect.objectContaining({ revoked_by: 'audience', sequence: 3 })]);
    expect(decide([issued, ...byHolder, ...byAudience], revoke('holder', T2))).toEqual([]);
  });

  it('an untracked token cannot be revoked (the caller answers unknown tokens before deciding)', () => {
    expect(() => decide([], revoke('holder'))).toThrow(InvalidCommandError);
  });
});
