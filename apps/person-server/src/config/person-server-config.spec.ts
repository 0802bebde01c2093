import { readFileSync } from 'node:fs';
import { ConfigError, validateJson } from '@mission/platform';
import { demoConfigFile } from '../testing/run-person-server.js';
import { personServerConfigSchema } from './person-server-config.js';

type Document = {
  principals: Record<string, unknown>[];
  agent_providers: Record<string, unknown>[];
  resources: Record<string, unknown>[];
} & Record<string, unknown>;
const demo = (): Document => JSON.parse(readFileSync(demoConfigFile, 'utf8')) as Document;

function failure(edit: (config: Document) => void): string {
  const config = demo();
  edit(config);
  try {
    validateJson(personServerConfigSchema, config, 'ps.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('person-server CONFIG_FILE schema', () => {
  it('accepts the shipped demo configuration', () => {
    const { value, warnings } = validateJson(personServerConfigSchema, demo(), 'ps.json');
    expect(warnings).toEqual([]);
    expect(value.principals.map((principal) => [principal.id, principal.role])).toEqual([
      ['alice', 'person'],
      ['bob', 'person'],
      ['ops', 'admin'],
    ]);
    expect(value.agent_providers[0]!.jwks!.keys).toHaveLength(1);
    expect(value.resources[0]).toMatchObject({
      issuer: 'https://files.example',
      revocation_endpoint: 'http://127.0.0.1:5000/revoke',
      call_chain_agents: ['aauth:files-service@agents.example'],
    });
    expect(value).toMatchObject({ untracked_access_modes: true, status_freshness_seconds: 30, rate_limits: { per_caller_per_minute: 600, per_source_per_minute: 6000 } });
  });

  it('fills defaults, assuming untracked access modes unless told otherwise', () => {
    const { value } = validateJson(personServerConfigSchema, { principals: [] }, 'ps.json');
    expect(value).toEqual({
      principals: [],
      agent_providers: [],
      resources: [],
      untracked_access_modes: true,
      status_freshness_seconds: 30,
      rate_limits: { per_caller_per_minute: 600, per_source_per_minute: 6000 },
      auth_token_ttl_seconds: 300,
      revocation: {
        wait_ms: 250,
        max_attempts: 8,
        initial_delay_ms: 1_000,
        max_delay_ms: 300_000,
        timeout_ms: 5_000,
        lease_ms: 30_000,
        per_resource_per_second: 200,
        concurrency: 32,
      },
    });
  });

  it('spec 4.4 rule 2: revocation retries are configurable but always bounded; a partial block keeps the other defaults', () => {
    const { value } = validateJson(personServerConfigSchema, { principals: [], revocation: { wait_ms: 100, max_attempts: 3 } }, 'ps.json');
    expect(value.revocation).toMatchObject({ wait_ms: 100, max_attempts: 3, timeout_ms: 5_000, per_resource_per_second: 200 });
    expect(() => validateJson(personServerConfigSchema, { principals: [], revocation: { max_attempts: 0 } }, 'ps.json')).toThrow(/revocation\.max_attempts/);
    expect(() => validateJson(personServerConfigSchema, { principals: [], revocation: { wait_ms: 60_000 } }, 'ps.json')).toThrow(/revocation\.wait_ms/);
    expect(() => validateJson(personServerConfigSchema, { principals: [], auth_token_ttl_seconds: 0 }, 'ps.json')).toThrow(/auth_token_ttl_seconds/);
  });

  it('DESIGN 3.3, ADR 0012: a resource without call_chain_agents declares no agent (it cannot start call chains)', () => {
    const config = demo();
    delete config.resources[0]!['call_chain_agents'];
    expect(validateJson(personServerConfigSchema, config, 'ps.json').value.resources[0]!.call_chain_agents).toEqual([]);
  });

  it('accepts a jwks_uri instead of inline keys, or neither (metadata discovery)', () => {
    const config = demo();
    delete config.agent_providers[0]!['jwks'];
    config.agent_providers[0]!['jwks_uri'] = 'https://agents.example/jwks';
    delete config.resources[0]!['jwks'];
    expect(validateJson(personServerConfigSchema, config, 'ps.json').value.agent_providers[0]).toEqual({ issuer: 'https://agents.example', agent_domains: ['agents.example'], jwks_uri: 'https://agents.example/jwks' });
  });

  it.each<[string, (config: Document) => void, string]>([
    ['an unknown role', (c) => void (c.principals[0]!['role'] = 'owner'), 'principals[0].role: must be "person" or "admin", got "owner"'],
    ['a jkt that is not a thumbprint', (c) => void (c.principals[0]!['jkt'] = 'abc'), 'principals[0].jkt: must be a SHA-256 JWK thumbprint'],
    ['one key for two principals', (c) => void (c.principals[1]!['jkt'] = c.principals[0]!['jkt']), 'principals[1].jkt: is already registered for principals[0]'],
    ['duplicate principal ids', (c) => void (c.principals[1]!['id'] = 'alice'), 'principals[1]: duplicate principal id "alice" (already at index 0)'],
    ['an admin owning agents', (c) => void (c.principals[2]!['agents'] = ['aauth:x@agents.example']), 'principals[2].agents: only principals with role "person" own agents'],
    ['a malformed agent id', (c) => void (c.principals[0]!['agents'] = ['assistant']), 'principals[0].agents[0]: must be an agent identifier'],
    ['a missing tenant', (c) => void delete c.principals[0]!['tenant'], 'principals[0].tenant: is required'],
    ['an issuer with a trailing slash', (c) => void (c.agent_providers[0]!['issuer'] = 'https://agents.example/'), 'agent_providers[0].issuer: must not end with "/"'],
    ['both jwks and jwks_uri', (c) => void (c.resources[0]!['jwks_uri'] = 'https://files.example/jwks'), 'resources[0].jwks_uri: give either jwks or jwks_uri, not both'],
    ['a private key', (c) => void (((c.resources[0]!['jwks'] as { keys: Record<string, unknown>[] }).keys[0]!)['d'] = 'x'), 'resources[0].jwks.keys[0].d: private key material'],
    ['call_chain_agents that is not an array', (c) => void (c.resources[0]!['call_chain_agents'] = 'aauth:files-service@agents.example'), 'resources[0].call_chain_agents: must be an array, got'],
    ['a call_chain_agents entry that is not a string', (c) => void (c.resources[0]!['call_chain_agents'] = [42]), 'resources[0].call_chain_agents[0]: must be a string, got 42'],
    ['a malformed call_chain_agents entry', (c) => void (c.resources[0]!['call_chain_agents'] = ['files-service']), 'resources[0].call_chain_agents[0]: must be an agent identifier such as "aauth:assistant@agents.example", got "files-service"'],
    [
      'a call_chain_agents entry given twice',
      (c) => void (c.resources[0]!['call_chain_agents'] = ['aauth:files-service@agents.example', 'aauth:files-service@agents.example']),
      'resources[0].call_chain_agents[1]: duplicate agent "aauth:files-service@agents.example" (already at index 0)',
    ],
    ['a relative revocation endpoint', (c) => void (c.resources[0]!['revocation_endpoint'] = '/revoke'), 'resources[0].revocation_endpoint: must be an absolute URL'],
    ['a non-boolean untracked_access_modes', (c) => void (c['untracked_access_modes'] = 'no'), 'untracked_access_modes: must be true or false, got "no"'],
    ['a zero freshness window', (c) => void (c['status_freshness_seconds'] = 0), 'status_freshness_seconds: must be an integer 1..3600, got 0'],
    ['an unknown rate limit', (c) => void (c['rate_limits'] = { per_tenant_per_minute: 5 }), 'rate_limits.per_tenant_per_minute: unknown key'],
  ])('refuses %s', (_what, edit, expected) => {
    expect(failure(edit)).toContain(`ps.json ${expected}`);
  });
  describe('agent domains (issue 12 defect 1, spec 5.2, ADR 0015)', () => {
    const second = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ issuer: 'https://other-agents.example', jwks_uri: 'https://other-agents.example/jwks', ...extra });

    it('spec 5.2: agent_domains defaults to the issuer host and is validated as lower-case host names', () => {
      const { value } = validateJson(personServerConfigSchema, { ...demo(), agent_providers: [...demo().agent_providers, second()] }, 'ps.json');
      expect(value.agent_providers.map((provider) => provider.agent_domains)).toEqual([['agents.example'], undefined]);
      expect(failure((config) => (config.agent_providers[0]!['agent_domains'] = ['Agents.Example']))).toMatch(/agent_providers\[0\]\.agent_domains\[0\].*lower-case host/);
      expect(failure((config) => (config.agent_providers[0]!['agent_domains'] = []))).toMatch(/agent_domains.*at least 1/);
    });

    it('spec 5.2, 5.4: one agent domain cannot belong to two providers (explicitly or by the issuer-host default)', () => {
      expect(failure((config) => config.agent_providers.push(second({ agent_domains: ['agents.example'] })))).toMatch(/agent_providers\[1\]\.agent_domains.*"agents.example" already belongs to agent_providers\[0\]/);
      expect(
        failure((config) => {
          delete config.agent_providers[0]!['agent_domains'];
          config.agent_providers.push(second({ agent_domains: ['agents.example'] }));
        }),
      ).toMatch(/already belongs to agent_providers\[0\]/);
    });

    it('spec 5.2: a person\'s agents and a resource\'s call_chain_agents must be identifiers some provider may assert', () => {
      expect(failure((config) => (config.principals[0]!['agents'] = ['aauth:assistant@elsewhere.example']))).toMatch(/principals\[0\]\.agents\[0\].*not an identifier any agent provider may assert/);
      expect(failure((config) => (config.resources[0]!['call_chain_agents'] = ['aauth:files-service@elsewhere.example']))).toMatch(/resources\[0\]\.call_chain_agents\[0\].*not an identifier any agent provider may assert/);
      expect(failure((config) => (config.agent_providers[0]!['agent_domains'] = ['agents.example:8443']))).toMatch(/principals\[0\]\.agents\[0\]/);
    });
  });
});
