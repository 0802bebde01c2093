import { principalRegistry } from '@mission/signature-key';
import type { JWK } from 'jose';
import { AgentProviderKeys } from './agent-provider-keys.js';
import { signingKeyFromSignatureKey, type KeySources } from './authentication-rules.js';
import { VerifiedAgentTokens } from './verified-agent-tokens.js';
import { AGENT, NOW_SECONDS, PROVIDER, PROVIDER_KEY, TestClock, agentToken, demoConfig, freshKey, jwtSignatureKey, without } from '../testing/signed-request.spec-helper.js';

/** The `Signature-Error` reason a rule refused with. */
async function refusal(rule: () => Promise<unknown>): Promise<string> {
  const error = await rule().then(() => new Error('expected a refusal'), (caught: unknown) => caught);
  const reason = (error as { reason?: unknown }).reason;
  if (typeof reason === 'string') return reason;
  throw error;
}

let clock: TestClock;
let tokens: VerifiedAgentTokens;
const sources = (agentProviders = new AgentProviderKeys(demoConfig.agent_providers)): KeySources => ({
  principals: principalRegistry(demoConfig.principals),
  agentProviders,
  clock,
  verifiedTokens: tokens,
});
const headersFor = (token: string) => ({ 'signature-key': jwtSignatureKey(token) });

beforeEach(() => {
  clock = new TestClock();
  tokens = new VerifiedAgentTokens();
});

describe('verified Agent Tokens remembered (issue 15, ADR 0065)', () => {
  it('ADR 0065: the next request with the same Agent Token is not verified again — it is handed the signing key of the first', async () => {
    const token = await agentToken({ agentKey: await freshKey() });
    const keySources = sources();
    const first = await signingKeyFromSignatureKey(headersFor(token), keySources);
    const second = await signingKeyFromSignatureKey(headersFor(token), keySources);
    expect(second).toBe(first);
    expect(second.caller).toMatchObject({ kind: 'agent', agent: AGENT, provider: PROVIDER });
  });

  it('spec 5.1: a remembered token is refused the second its exp passes (no tolerance), as a fresh verification would', async () => {
    const token = await agentToken({ agentKey: await freshKey(), claims: { exp: NOW_SECONDS + 30 } });
    const keySources = sources();
    await signingKeyFromSignatureKey(headersFor(token), keySources);
    clock.advance(29);
    await expect(signingKeyFromSignatureKey(headersFor(token), keySources)).resolves.toBeDefined();
    clock.advance(1);
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(token), keySources))).resolves.toBe('expired_agent_token');
  });

  it('spec 5.1: a clock set back before a remembered token\'s iat (beyond the skew) or nbf refuses it again', async () => {
    const early = await agentToken({ agentKey: await freshKey(), claims: { iat: NOW_SECONDS + 50 } });
    const notBefore = await agentToken({ agentKey: await freshKey(), claims: { nbf: NOW_SECONDS } });
    const keySources = sources();
    await signingKeyFromSignatureKey(headersFor(early), keySources);
    await signingKeyFromSignatureKey(headersFor(notBefore), keySources);
    clock.advance(-11);
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(early), keySources))).resolves.toBe('expired_agent_token');
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(notBefore), keySources))).resolves.toBe('invalid_agent_token');
  });

  it('spec 5.1: after the provider rotates its keys, a remembered token of the removed key is verified afresh and refused', async () => {
    const next: JWK = { ...without((await freshKey('ES256')).publicJwk, 'd'), kid: 'provider-2', alg: 'ES256' };
    let served: JWK[] = [{ ...without(PROVIDER_KEY, 'd') }];
    let nowMs = 0;
    const fetch = (async () => new Response(JSON.stringify({ keys: served }), { headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
    const providers = new AgentProviderKeys([{ issuer: PROVIDER, jwks_uri: `${PROVIDER}/jwks` }], { fetch, nowMs: () => nowMs, maxAgeMs: 1_000 });
    const keySources = sources(providers);
    const token = await agentToken({ agentKey: await freshKey() });
    await signingKeyFromSignatureKey(headersFor(token), keySources);
    served = [next];
    nowMs = 1_000;
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(token), keySources))).resolves.toBe('invalid_agent_token');
  });

  it('spec 5.1: a verification that was under way while the keys rotated is remembered for the old keys only, never served under the new', async () => {
    const configured = new AgentProviderKeys(demoConfig.agent_providers);
    const before = (await configured.providerFor(PROVIDER, String(PROVIDER_KEY.kid))).jwks!.keys;
    const after = [{ ...without((await freshKey('ES256')).publicJwk, 'd'), kid: 'provider-2', alg: 'ES256', kty: 'EC' }];
    let current = before;
    // The provider's keys are rotated right after this verification looked them up (a refresh by another request).
    const rotating = Object.assign(Object.create(configured) as AgentProviderKeys, {
      providerFor: async (issuer: string) => {
        const keys = current;
        current = after;
        return { issuer, jwks: { keys } };
      },
    });
    const keySources = sources(rotating);
    const token = await agentToken({ agentKey: await freshKey() });
    await signingKeyFromSignatureKey(headersFor(token), keySources);
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(token), keySources))).resolves.toBe('invalid_agent_token');
  });

  it('spec 5.1, 5.2: a token differing in one character, or another agent\'s token, is never served a remembered entry', async () => {
    const keySources = sources();
    const token = await agentToken({ agentKey: await freshKey() });
    await signingKeyFromSignatureKey(headersFor(token), keySources);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`;
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(forged), keySources))).resolves.toBe('invalid_agent_token');
    const otherKey = await freshKey();
    const other = await signingKeyFromSignatureKey(headersFor(await agentToken({ agentKey: otherKey, claims: { sub: 'aauth:other@agents.example' } })), keySources);
    expect(other.caller).toMatchObject({ agent: 'aauth:other@agents.example' });
    expect(other.key.publicKey).toMatchObject({ x: otherKey.publicJwk.x });
  });

  it('spec 5.2, ADR 0015: a remembered token whose agent the provider may no longer assert (agent domains changed, same keys) is refused', async () => {
    const token = await agentToken({ agentKey: await freshKey() });
    await signingKeyFromSignatureKey(headersFor(token), sources());
    const narrowed = new AgentProviderKeys(demoConfig.agent_providers.map((provider) => ({ ...provider, agent_domains: ['elsewhere.example'] })));
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(token), sources(narrowed)))).resolves.toBe('agent_outside_provider');
  });

  it('spec 5.1: a remembered token of a provider no longer configured is refused as any token of an unknown issuer', async () => {
    const token = await agentToken({ agentKey: await freshKey() });
    await signingKeyFromSignatureKey(headersFor(token), sources());
    const fresh = await refusal(() => signingKeyFromSignatureKey(headersFor(token), { ...sources(new AgentProviderKeys([])), verifiedTokens: new VerifiedAgentTokens() }));
    await expect(refusal(() => signingKeyFromSignatureKey(headersFor(token), sources(new AgentProviderKeys([]))))).resolves.toBe(fresh);
  });

  it('ADR 0065: the signing key handed out cannot be changed by one request for the next', async () => {
    const token = await agentToken({ agentKey: await freshKey() });
    const keySources = sources();
    const first = await signingKeyFromSignatureKey(headersFor(token), keySources);
    expect(() => ((first.caller as { agent: string }).agent = 'aauth:mallory@agents.example')).toThrow(TypeError);
    expect(() => ((first.key.publicKey as { x?: string }).x = 'AAAA')).toThrow(TypeError);
    expect((await signingKeyFromSignatureKey(headersFor(token), keySources)).caller).toMatchObject({ agent: AGENT });
  });

  it('ADR 0065: bounded — the least recently used token is forgotten first', async () => {
    tokens = new VerifiedAgentTokens(2);
    const keySources = sources();
    for (let index = 0; index < 3; index++) await signingKeyFromSignatureKey(headersFor(await agentToken({ agentKey: await freshKey() })), keySources);
    expect(tokens.size).toBe(2);
  });
});
