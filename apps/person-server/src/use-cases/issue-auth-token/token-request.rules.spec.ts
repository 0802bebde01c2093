import type { AuthenticatedAgent } from '../../identity/authenticated-caller.js';
import type { VerifiedUpstreamToken } from '../../tokens/auth-tokens.js';
import { InvalidRequestProblem } from '../../errors/problems.js';
import { callerCallsOnwardsForUpstreamAudience, type CallChainAgentSource } from './token-request.rules.js';

const FILES = 'https://files.example';
const FILES_AGENT = 'aauth:files-service@agents.example';
const MISSION = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';

/** The configured resources of the test: files.example calls onwards as FILES_AGENT; mail.example declares no agent. */
const resources: CallChainAgentSource = {
  callChainAgents: (resource) => ({ [FILES]: [FILES_AGENT], 'https://mail.example': [] as string[] })[resource],
};

function agent(id: string): AuthenticatedAgent {
  return { kind: 'agent', provider: 'https://agents.example', agent: id, agentJkt: 'A'.repeat(43), tokenClaims: { iss: 'https://agents.example', sub: id, iat: 0, exp: 1 } };
}

function upstreamFor(aud: string): VerifiedUpstreamToken {
  return { jti: 'jti-1', aud, agent: 'aauth:assistant@agents.example', missionS256: MISSION };
}

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('callerCallsOnwardsForUpstreamAudience (DESIGN 3.3 call chains bound to the caller, ADR 0012)', () => {
  it('DESIGN 3.3: an agent the upstream token’s aud declares in call_chain_agents may present it', () => {
    expect(() => callerCallsOnwardsForUpstreamAudience(upstreamFor(FILES), agent(FILES_AGENT), resources)).not.toThrow();
  });

  it.each([
    ['an agent the aud does not declare (a copied token)', FILES, 'aauth:researcher@agents.example'],
    ['the agent the upstream token was issued for (it is not the resource calling onwards)', FILES, 'aauth:assistant@agents.example'],
    ['any agent when the aud declares none (the default)', 'https://mail.example', FILES_AGENT],
    ['any agent when the aud is no longer a configured resource', 'https://gone.example', FILES_AGENT],
  ])('DESIGN 3.3, spec 7: %s → 400 invalid_request', (_what, aud, caller) => {
    const error = refusal(() => callerCallsOnwardsForUpstreamAudience(upstreamFor(aud), agent(caller), resources));
    expect(error).toBeInstanceOf(InvalidRequestProblem);
    expect((error as InvalidRequestProblem).status).toBe(400);
    // Spec 5.9: the detail names the rule, never the mission.
    expect((error as Error).message).not.toContain(MISSION);
  });
});
