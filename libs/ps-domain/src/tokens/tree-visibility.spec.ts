import { fold } from '@mission/decider';
import { AGENT, APPROVER, MISSION_S256, T0 } from '../testing/fixtures.js';
import { delegationTreeNodes } from './delegation-tree.js';
import { tokenResidual } from './token-residual.js';
import { PS_REVOCATION, trackedTokenDecider } from './tracked-token.decider.js';
import { TOKEN_POLICIES, type TokenPolicy, type TrackedTokenEvent } from './tracked-token.events.js';
import { tokenResidualForCaller, visibleTrackedTokens } from './tree-visibility.js';

const SUB = 'aauth:helper@agents.example';
const OWN_SERVICE = 'aauth:files-service@agents.example';
/** A resource of the other tenant calling onwards as that tenant's agent. */
const FOREIGN = 'aauth:files-service@agents.other';
const FOREIGN_DOWNSTREAM = 'aauth:indexer@agents.other';
const KNOWN = new Set([AGENT, OWN_SERVICE]);
const known = (agent: string): boolean => KNOWN.has(agent);

let sequence = 0;
const base = (policy: TokenPolicy) => ({
  approver: APPROVER,
  mission_s256: MISSION_S256,
  sequence: ++sequence,
  occurred_at: T0.toISOString(),
  actor: policy === TOKEN_POLICIES.revocation ? PS_REVOCATION : { id: AGENT, role: 'agent' },
  authorization: { decision: 'permit' as const, policy },
});
const issued = (jti: string, agent: string, relationship: 'root' | 'sub_agent' | 'call_chain', parent?: string, exp = '2026-11-22T09:05:00.000Z'): TrackedTokenEvent => ({
  type: 'AuthTokenIssued',
  data: {
    ...base(relationship === 'call_chain' ? TOKEN_POLICIES.callChain : TOKEN_POLICIES.owningAgent),
    iss: APPROVER,
    jti,
    aud: 'https://files.example',
    exp,
    issued_at: T0.toISOString(),
    origin: 'issued',
    agent,
    relationship,
    ...(parent !== undefined ? { parent_agent: parent } : {}),
  },
});

const state = fold(trackedTokenDecider, [
  issued('root-1', AGENT, 'root'),
  issued('sub-1', SUB, 'sub_agent', AGENT),
  issued('own-chain', OWN_SERVICE, 'call_chain', AGENT),
  issued('foreign-chain', FOREIGN, 'call_chain', AGENT, '2026-11-22T09:30:00.000Z'),
  // Beneath the foreign node: its topology must not show either, even though the sub-agent rule would admit it.
  issued('foreign-sub', 'aauth:foreign-helper@agents.other', 'sub_agent', FOREIGN),
  issued('foreign-deeper', FOREIGN_DOWNSTREAM, 'call_chain', FOREIGN),
]);

describe('delegation tree visibility (spec 4.3 rule 3, 2.5, ADR 0019)', () => {
  it('spec 4.3 rule 3: another tenant’s call-chain node, its tokens and everything beneath it are left out', () => {
    const visible = visibleTrackedTokens(AGENT, state, known);
    const nodes = delegationTreeNodes(AGENT, visible, { kind: 'all' });
    expect(nodes).toEqual([
      { agent: AGENT, relationship: 'root', tokens: [{ iss: APPROVER, jti: 'root-1' }] },
      { agent: SUB, relationship: 'sub_agent', parent_agent: AGENT, tokens: [{ iss: APPROVER, jti: 'sub-1' }] },
      { agent: OWN_SERVICE, relationship: 'call_chain', parent_agent: AGENT, tokens: [{ iss: APPROVER, jti: 'own-chain' }] },
    ]);
    expect(JSON.stringify(nodes)).not.toMatch(/agents\.other|foreign/);
  });

  it('spec 4.3 rule 3: with every agent known, nothing is left out (the filter hides only what it must)', () => {
    expect(visibleTrackedTokens(AGENT, state, () => true).tokens.size).toBe(6);
  });

  it('spec 2.5: tracked counts only the tokens the caller may know about; complete stays false while a hidden token is live', () => {
    const visible = visibleTrackedTokens(AGENT, state, known);
    const residual = tokenResidualForCaller(state, visible, T0, { untrackedAccessModes: false });
    expect(residual).toEqual({ tracked: 3, revocation_attempted: 0, revocation_confirmed: 0, residual_until: '2026-11-22T09:05:00.000Z', complete: false });
    // Without the filter the other tenant's tokens would be counted and its later expiry disclosed.
    expect(tokenResidual(state, T0, { untrackedAccessModes: false })).toMatchObject({ tracked: 6, residual_until: '2026-11-22T09:30:00.000Z' });
  });

  it('spec 2.5: complete is true for the caller only when every token, hidden ones included, is closed', () => {
    const allExpired = new Date('2026-11-22T10:00:00.000Z');
    const visible = visibleTrackedTokens(AGENT, state, known);
    expect(tokenResidualForCaller(state, visible, allExpired, { untrackedAccessModes: false })).toEqual({ tracked: 3, revocation_attempted: 0, revocation_confirmed: 0, complete: true });
  });
});
