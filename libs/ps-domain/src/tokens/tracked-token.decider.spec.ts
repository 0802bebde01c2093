import { given } from '@mission/decider';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { AGENT, APPROVER, MISSION_S256, OTHER_AGENT, OTHER_S256, T0, T1, T2, at } from '../testing/fixtures.js';
import type { IssuedTokenFacts, RecordIssuedToken } from './tracked-token.commands.js';
import { PS_REVOCATION, trackedTokenDecider } from './tracked-token.decider.js';
import { TOKEN_POLICIES, type TokenLogData, type TokenPolicy, type TrackedTokenEvent } from './tracked-token.events.js';
import { revocationCandidates, tokenKey } from './tracked-token.state.js';

const RESOURCE = 'https://files.example';
const ENDPOINT = 'http://127.0.0.1:5000/revoke';
const EXP = at('2026-11-22T09:05:00.000Z');
const LATER_EXP = at('2026-11-22T09:10:00.000Z');
const AGENT_ACTOR = { id: AGENT, role: 'agent' };

function facts(overrides: Partial<IssuedTokenFacts> = {}): IssuedTokenFacts {
  return { iss: APPROVER, jti: 'jti-1', aud: RESOURCE, exp: EXP, origin: 'issued', revocationEndpoint: ENDPOINT, agent: AGENT, relationship: 'root', ...overrides };
}

function issue(overrides: Partial<IssuedTokenFacts> = {}, now = T0): RecordIssuedToken {
  return { type: 'RecordIssuedToken', approver: APPROVER, missionS256: MISSION_S256, token: facts(overrides), actor: AGENT_ACTOR, policy: TOKEN_POLICIES.owningAgent, now };
}

const log = (sequence: number, now: Date, actor = AGENT_ACTOR, policy: TokenPolicy = TOKEN_POLICIES.owningAgent): TokenLogData => ({
  approver: APPROVER,
  mission_s256: MISSION_S256,
  sequence,
  occurred_at: now.toISOString(),
  actor,
  authorization: { decision: 'permit', policy },
});

const issued = (jti = 'jti-1', sequence = 1, overrides: Record<string, unknown> = {}): TrackedTokenEvent =>
  ({
    type: 'AuthTokenIssued',
    data: {
      ...log(sequence, T0),
      iss: APPROVER,
      jti,
      aud: RESOURCE,
      exp: EXP.toISOString(),
      issued_at: T0.toISOString(),
      origin: 'issued',
      revocation_endpoint: ENDPOINT,
      agent: AGENT,
      relationship: 'root',
      ...overrides,
    },
  }) as TrackedTokenEvent;

const attempted = (jti: string, attempt: number, sequence: number, now = T0): TrackedTokenEvent => ({
  type: 'TokenRevocationAttempted',
  data: { ...log(sequence, now, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: APPROVER, jti, attempt, endpoint: ENDPOINT },
});

const confirmed = (jti: string, attempt: number, sequence: number, now = T0): TrackedTokenEvent => ({
  type: 'TokenRevocationConfirmed',
  data: { ...log(sequence, now, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: APPROVER, jti, attempt, http_status: 200 },
});

const failed = (jti: string, attempt: number, sequence: number, outcome = 'server_error', httpStatus: number | null = 500): TrackedTokenEvent =>
  ({
    type: 'TokenRevocationFailed',
    data: { ...log(sequence, T0, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: APPROVER, jti, attempt, outcome, ...(httpStatus !== null ? { http_status: httpStatus } : {}) },
  }) as TrackedTokenEvent;

describe('spec 2.6: a Tracked Auth Token record per issued token', () => {
  it('records the Mission Reference, (iss, jti), aud, exp, the revocation endpoint and that the PS issued it', () => {
    given(trackedTokenDecider).when(issue()).then([issued()]);
  });

  it('identifies a token by (iss, jti) together: the same jti from another issuer is another token', () => {
    const state = given(trackedTokenDecider, [issued()]).when(issue({ iss: 'https://other-ps.example', origin: 'federated' })).then([
      issued('jti-1', 2, { iss: 'https://other-ps.example', origin: 'federated' }),
    ]);
    expect(state.tokens.size).toBe(2);
  });

  it('tracks a token once: the same (iss, jti) again is refused', () => {
    given(trackedTokenDecider, [issued()]).when(issue()).thenThrows(InvalidCommandError);
  });

  it('never tracks a token of another mission on this stream', () => {
    given(trackedTokenDecider, [issued()]).when({ ...issue({ jti: 'jti-2' }), missionS256: OTHER_S256 }).thenThrows(InvalidCommandError);
  });

  it('refuses an issued token without exp or with exp not in the future', () => {
    given(trackedTokenDecider).when(issue({ exp: undefined })).thenThrows(InvalidCommandError);
    given(trackedTokenDecider).when(issue({ exp: T0 })).thenThrows(InvalidCommandError);
  });

  it('spec 2.7: a non-root holder needs parent_agent, a call chain its upstream token', () => {
    given(trackedTokenDecider).when(issue({ relationship: 'sub_agent' })).thenThrows(InvalidCommandError);
    given(trackedTokenDecider).when(issue({ relationship: 'root', parentAgent: OTHER_AGENT })).thenThrows(InvalidCommandError);
    given(trackedTokenDecider).when(issue({ relationship: 'call_chain', parentAgent: AGENT })).thenThrows(InvalidCommandError);
    given(trackedTokenDecider)
      .when(issue({ agent: OTHER_AGENT, relationship: 'call_chain', parentAgent: AGENT, upstream: { iss: APPROVER, jti: 'up-1' } }))
      .then([issued('jti-1', 1, { agent: OTHER_AGENT, relationship: 'call_chain', parent_agent: AGENT, upstream: { iss: APPROVER, jti: 'up-1' } })]);
  });

  it('a withheld token (mission terminated before the answer) is no longer handed out, once', () => {
    const withhold = { type: 'WithholdToken', token: { iss: APPROVER, jti: 'jti-1' }, actor: AGENT_ACTOR, now: T1 } as const;
    const state = given(trackedTokenDecider, [issued()])
      .when(withhold)
      .then([{ type: 'AuthTokenWithheld', data: { ...log(2, T1), iss: APPROVER, jti: 'jti-1', reason: 'mission_terminated' } }]);
    expect(state.tokens.get(tokenKey({ iss: APPROVER, jti: 'jti-1' }))?.released).toBe(false);
    given(trackedTokenDecider, [issued(), { type: 'AuthTokenWithheld', data: { ...log(2, T1), iss: APPROVER, jti: 'jti-1', reason: 'mission_terminated' } }])
      .when(withhold)
      .thenNothingHappens();
  });
});

describe('spec 4.4 / 6: every revocation attempt and result is an event', () => {
  it('records an attempt per token still in need, numbered per token', () => {
    given(trackedTokenDecider, [issued('a', 1), issued('b', 2)])
      .when({ type: 'RecordRevocationAttempts', tokens: [{ iss: APPROVER, jti: 'a' }, { iss: APPROVER, jti: 'b' }], now: T0 })
      .then([attempted('a', 1, 3), attempted('b', 1, 4)]);
    given(trackedTokenDecider, [issued('a', 1), attempted('a', 1, 2), failed('a', 1, 3)])
      .when({ type: 'RecordRevocationAttempts', tokens: [{ iss: APPROVER, jti: 'a' }], now: T0 })
      .then([attempted('a', 2, 4)]);
  });

  it('spec 4.4 rule 1: confirmed, withheld, stopped and expired tokens are not attempted', () => {
    const history = [
      issued('confirmed', 1),
      attempted('confirmed', 1, 2),
      confirmed('confirmed', 1, 3),
      issued('withheld', 4),
      { type: 'AuthTokenWithheld', data: { ...log(5, T0), iss: APPROVER, jti: 'withheld', reason: 'mission_terminated' } } as TrackedTokenEvent,
      issued('expires-soon', 6),
    ];
    given(trackedTokenDecider, history)
      .when({ type: 'RecordRevocationAttempts', tokens: ['confirmed', 'withheld', 'expires-soon', 'unknown'].map((jti) => ({ iss: APPROVER, jti })), now: EXP })
      .thenNothingHappens();
  });

  it('spec 4.4 rule 3: a 200 confirms; a confirmation is recorded once, even when the same result arrives again', () => {
    const history = [issued('a', 1), attempted('a', 1, 2)];
    const result = { type: 'RecordRevocationResults', results: [{ iss: APPROVER, jti: 'a', attempt: 1, outcome: 'confirmed', httpStatus: 200 }], now: T0 } as const;
    given(trackedTokenDecider, history).when(result).then([confirmed('a', 1, 3)]);
    given(trackedTokenDecider, [...history, confirmed('a', 1, 3)]).when(result).thenNothingHappens();
    given(trackedTokenDecider, history)
      .when({ ...result, results: [result.results[0], result.results[0]] })
      .then([confirmed('a', 1, 3)]);
  });

  it('spec 4.4 rule 3: timeouts, unreachable endpoints, 5xx and ambiguous answers stay unconfirmed', () => {
    const history = [issued('a', 1), attempted('a', 1, 2)];
    for (const [outcome, status] of [['timeout', undefined], ['unreachable', undefined], ['server_error', 503], ['ambiguous', 202], ['rejected', 401]] as const) {
      const state = given(trackedTokenDecider, history)
        .when({ type: 'RecordRevocationResults', results: [{ iss: APPROVER, jti: 'a', attempt: 1, outcome, ...(status !== undefined ? { httpStatus: status } : {}) }], now: T0 })
        .then([failed('a', 1, 3, outcome, status ?? null)]);
      expect(revocationCandidates(state, T0).map((token) => token.jti)).toEqual(['a']);
    }
  });

  it('a result must answer a recorded attempt; a result for an attempt already answered records nothing', () => {
    given(trackedTokenDecider, [issued('a', 1)])
      .when({ type: 'RecordRevocationResults', results: [{ iss: APPROVER, jti: 'a', attempt: 1, outcome: 'confirmed' }], now: T0 })
      .thenThrows(InvalidCommandError);
    given(trackedTokenDecider, [issued('a', 1), attempted('a', 1, 2), failed('a', 1, 3)])
      .when({ type: 'RecordRevocationResults', results: [{ iss: APPROVER, jti: 'a', attempt: 1, outcome: 'timeout' }], now: T0 })
      .thenNothingHappens();
  });

  it('only a 200 may confirm', () => {
    given(trackedTokenDecider, [issued('a', 1), attempted('a', 1, 2)])
      .when({ type: 'RecordRevocationResults', results: [{ iss: APPROVER, jti: 'a', attempt: 1, outcome: 'confirmed', httpStatus: 204 }], now: T0 })
      .thenThrows(InvalidCommandError);
  });

  it('stopping: expired tokens stop as expired (only once they are), exhausted ones as attempts_exhausted', () => {
    const history = [issued('a', 1), issued('b', 2, { exp: LATER_EXP.toISOString() })];
    given(trackedTokenDecider, history).when({ type: 'StopRevocations', tokens: [{ iss: APPROVER, jti: 'b' }], reason: 'expired', now: EXP }).thenThrows(InvalidCommandError);
    const state = given(trackedTokenDecider, history)
      .when({ type: 'StopRevocations', tokens: [{ iss: APPROVER, jti: 'a' }, { iss: APPROVER, jti: 'b' }], reason: 'attempts_exhausted', now: T0 })
      .then([
        { type: 'TokenRevocationStopped', data: { ...log(3, T0, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: APPROVER, jti: 'a', reason: 'attempts_exhausted' } },
        { type: 'TokenRevocationStopped', data: { ...log(4, T0, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: APPROVER, jti: 'b', reason: 'attempts_exhausted' } },
      ]);
    expect(revocationCandidates(state, T0)).toEqual([]);
  });

  it('rejects oversized batches and malformed identities', () => {
    const many = Array.from({ length: 1_001 }, (_, index) => ({ iss: APPROVER, jti: `j${index}` }));
    given(trackedTokenDecider).when({ type: 'RecordRevocationAttempts', tokens: many, now: T2 }).thenThrows(InvalidCommandError);
    given(trackedTokenDecider).when({ type: 'RecordRevocationAttempts', tokens: [{ iss: '', jti: 'x' }], now: T2 }).thenThrows(InvalidCommandError);
  });
});
