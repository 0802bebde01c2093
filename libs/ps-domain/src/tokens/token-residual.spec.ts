import { fold } from '@mission/decider';
import { AGENT, APPROVER, MISSION_S256, OTHER_AGENT, T0, at } from '../testing/fixtures.js';
import { delegationTreeNodes } from './delegation-tree.js';
import { tokenResidual } from './token-residual.js';
import { evolveTrackedTokensMany, PS_REVOCATION, trackedTokenDecider } from './tracked-token.decider.js';
import { TOKEN_POLICIES, type TokenLogData, type TokenPolicy, type TrackedTokenEvent } from './tracked-token.events.js';

const EXP_1 = '2026-11-22T09:05:00.000Z';
const EXP_2 = '2026-11-22T09:10:00.000Z';
const base = (sequence: number, policy: TokenPolicy = TOKEN_POLICIES.owningAgent): TokenLogData => ({
  approver: APPROVER,
  mission_s256: MISSION_S256,
  sequence,
  occurred_at: T0.toISOString(),
  actor: policy === TOKEN_POLICIES.revocation ? PS_REVOCATION : { id: AGENT, role: 'agent' },
  authorization: { decision: 'permit', policy },
});
let sequence = 0;
const issued = (jti: string, extra: Record<string, unknown> = {}): TrackedTokenEvent =>
  ({
    type: 'AuthTokenIssued',
    data: { ...base(++sequence), iss: APPROVER, jti, aud: 'https://files.example', exp: EXP_1, issued_at: T0.toISOString(), origin: 'issued', agent: AGENT, relationship: 'root', ...extra },
  }) as TrackedTokenEvent;
const attempt = (jti: string): TrackedTokenEvent => ({ type: 'TokenRevocationAttempted', data: { ...base(++sequence, TOKEN_POLICIES.revocation), iss: APPROVER, jti, attempt: 1 } });
const confirm = (jti: string): TrackedTokenEvent => ({ type: 'TokenRevocationConfirmed', data: { ...base(++sequence, TOKEN_POLICIES.revocation), iss: APPROVER, jti, attempt: 1, http_status: 200 } });
const withheld = (jti: string): TrackedTokenEvent => ({ type: 'AuthTokenWithheld', data: { ...base(++sequence), iss: APPROVER, jti, reason: 'mission_terminated' } });

describe('spec 2.5: token_residual', () => {
  it('no tokens: zeros, no residual_until, complete only without untracked access modes (spec 4.4 rule 6)', () => {
    const state = fold(trackedTokenDecider, []);
    expect(tokenResidual(state, T0, { untrackedAccessModes: false })).toEqual({ tracked: 0, revocation_attempted: 0, revocation_confirmed: 0, complete: true });
    expect(tokenResidual(state, T0, { untrackedAccessModes: true })).toEqual({ tracked: 0, revocation_attempted: 0, revocation_confirmed: 0, complete: false });
  });

  it('residual_until is the latest exp among unconfirmed tokens; confirmed and withheld tokens do not count', () => {
    const state = fold(trackedTokenDecider, [issued('a'), issued('b', { exp: EXP_2 }), issued('c'), issued('w', { exp: '2026-11-22T09:20:00.000Z' }), withheld('w'), attempt('a'), attempt('b'), confirm('b')]);
    expect(tokenResidual(state, T0, { untrackedAccessModes: false })).toEqual({
      tracked: 3,
      revocation_attempted: 2,
      revocation_confirmed: 1,
      residual_until: EXP_1,
      complete: false,
    });
  });

  it('spec 4.4 rule 3: natural expiry closes the residual of unconfirmed tokens', () => {
    const state = fold(trackedTokenDecider, [issued('a'), attempt('a')]);
    expect(tokenResidual(state, at(EXP_1), { untrackedAccessModes: false })).toEqual({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 0, complete: true });
    expect(tokenResidual(state, at(EXP_1), { untrackedAccessModes: true })['complete']).toBe(false);
  });

  it('spec 4.4 rule 5: a token with unknown expiry makes the residual unbounded (never a residual_until)', () => {
    const state = fold(trackedTokenDecider, [issued('a'), issued('f', { iss: 'https://as.example', origin: 'federated', exp: undefined })]);
    const residual = tokenResidual(state, T0, { untrackedAccessModes: false });
    expect(residual['residual_until']).toBeUndefined();
    expect(residual['residual_unbounded']).toBe(true);
    expect(residual['complete']).toBe(false);
  });
});

describe('spec 2.7 / 4.3 rule 4: delegation tree nodes from tracked tokens', () => {
  const SUB = 'aauth:helper@agents.example';
  const events = [
    issued('r1'),
    issued('s1', { agent: SUB, relationship: 'sub_agent', parent_agent: AGENT }),
    issued('s2', { agent: SUB, relationship: 'sub_agent', parent_agent: AGENT }),
    issued('c1', { agent: OTHER_AGENT, relationship: 'call_chain', parent_agent: AGENT, upstream: { iss: APPROVER, jti: 'r1' } }),
    issued('w1', { agent: 'aauth:never@agents.example', relationship: 'sub_agent', parent_agent: AGENT }),
    withheld('w1'),
  ];

  it('root, sub_agent and call_chain nodes with parent_agent on every non-root node; tokens for persons and admins', () => {
    expect(delegationTreeNodes(AGENT, fold(trackedTokenDecider, events), { kind: 'all' })).toEqual([
      { agent: AGENT, relationship: 'root', tokens: [{ iss: APPROVER, jti: 'r1' }] },
      { agent: SUB, relationship: 'sub_agent', parent_agent: AGENT, tokens: [{ iss: APPROVER, jti: 's1' }, { iss: APPROVER, jti: 's2' }] },
      { agent: OTHER_AGENT, relationship: 'call_chain', parent_agent: AGENT, tokens: [{ iss: APPROVER, jti: 'c1' }] },
    ]);
  });

  it('an agent sees token identifiers only on its own node', () => {
    const nodes = delegationTreeNodes(AGENT, fold(trackedTokenDecider, events), { kind: 'own', agent: AGENT });
    expect(nodes[0]?.tokens).toEqual([{ iss: APPROVER, jti: 'r1' }]);
    expect(nodes.slice(1).every((node) => node.tokens === undefined)).toBe(true);
  });

  it('without tracked tokens the tree is the root alone', () => {
    expect(delegationTreeNodes(AGENT, fold(trackedTokenDecider, []), { kind: 'all' })).toEqual([{ agent: AGENT, relationship: 'root', tokens: [] }]);
  });
});

describe('evolveTrackedTokensMany', () => {
  it('folds a batch to the same state as event-by-event evolve, without changing its input', () => {
    const events = [issued('m1'), issued('m2', { exp: EXP_2 }), attempt('m1'), confirm('m1'), withheld('m2')];
    const start = fold(trackedTokenDecider, []);
    const byOne = events.reduce(trackedTokenDecider.evolve, start);
    const batched = evolveTrackedTokensMany(start, events);
    expect(batched).toEqual(byOne);
    expect(start.tokens.size).toBe(0);
    const half = evolveTrackedTokensMany(start, events.slice(0, 2));
    const before = [...half.tokens.values()];
    evolveTrackedTokensMany(half, events.slice(2));
    expect([...half.tokens.values()]).toEqual(before);
  });
});
