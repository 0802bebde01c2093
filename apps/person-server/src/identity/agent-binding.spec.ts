import { AgentIdentifierBinding, agentDomainsOf, agentIdentifierDomain, sameAgent } from './agent-binding.js';

const A = 'https://agents.example';
const B = 'https://agents-b.example';

describe('agent identifier binding (issue 12 defect 1, spec 5.2, ADR 0015)', () => {
  const binding = new AgentIdentifierBinding([{ issuer: A }, { issuer: B, agent_domains: ['agents-b.example', 'b.example:8443'] }]);

  it('spec 5.2: only the provider of the identifier\'s domain vouches for it; the default domain is the issuer host', () => {
    expect(agentDomainsOf({ issuer: 'https://Agents.Example:8443' })).toEqual(['agents.example:8443']);
    expect(binding.vouches(A, 'aauth:assistant@agents.example')).toBe(true);
    expect(binding.vouches(B, 'aauth:assistant@agents.example')).toBe(false);
    expect(binding.vouches(B, 'aauth:assistant@agents-b.example')).toBe(true);
    expect(binding.vouches(B, 'aauth:x@b.example:8443')).toBe(true);
    expect(binding.vouches(A, 'aauth:assistant@agents-b.example')).toBe(false);
  });

  it.each([
    ['an upper-case spelling of the domain (an alias)', 'aauth:assistant@AGENTS.example'],
    ['a sub-domain of the provider\'s domain', 'aauth:assistant@evil.agents.example'],
    ['a non-AAuth identifier', 'https://agents.example/assistant'],
    ['two @', 'aauth:a@b@agents.example'],
    ['no local part', 'aauth:@agents.example'],
  ])('spec 5.2: %s is asserted by no provider', (_label, agent) => {
    expect(binding.providerOf(agent)).toBeUndefined();
    expect(binding.vouches(A, agent)).toBe(false);
  });

  it('spec 5.4: agents are equal only as (provider, identifier)', () => {
    expect(agentIdentifierDomain('aauth:assistant@agents.example')).toBe('agents.example');
    expect(sameAgent({ provider: A, agent: 'aauth:x@agents.example' }, { provider: A, agent: 'aauth:x@agents.example' })).toBe(true);
    expect(sameAgent({ provider: B, agent: 'aauth:x@agents.example' }, { provider: A, agent: 'aauth:x@agents.example' })).toBe(false);
    expect(binding.identityOf('aauth:x@agents-b.example')).toEqual({ provider: B, agent: 'aauth:x@agents-b.example' });
  });

  it('spec 5.2: a domain two providers claim is asserted by neither (configuration validation refuses it first)', () => {
    const ambiguous = new AgentIdentifierBinding([{ issuer: A }, { issuer: B, agent_domains: ['agents.example'] }]);
    expect(ambiguous.providerOf('aauth:assistant@agents.example')).toBeUndefined();
    expect(ambiguous.vouches(A, 'aauth:assistant@agents.example')).toBe(false);
  });
});
