import { contentDigest, signRequest, verifyRequestSignature, type HttpRequest } from '@mission/http-signatures';
import { calculateJwkThumbprint } from 'jose';
import { AGENT, ISSUER, NOW_SECONDS, agentToken, clock, keyPair, type KeyPair } from './agent-token.spec-helper.js';
import { principalRegistry } from './hwk-principal.js';
import { SignatureKeyError } from './signature-key-error.js';
import { signatureKeyResolver } from './signature-key-resolver.js';
import { verifyAgentToken, type AgentProvider } from './verify-agent-token.js';

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignatureKeyError) return error.reason;
    throw error;
  }
  throw new Error('expected a SignatureKeyError');
}

let providerKey: KeyPair;
let agentKey: KeyPair;
let providers: AgentProvider[];

beforeAll(async () => {
  providerKey = await keyPair('ES256');
  agentKey = await keyPair('EdDSA');
  providers = [{ issuer: ISSUER, jwks: { keys: [{ ...providerKey.publicJwk, kty: 'EC', kid: 'provider-1', alg: 'ES256' }] } }];
});

const cnf = (): { jwk: unknown } => ({ jwk: agentKey.publicJwk });

describe('verifyAgentToken (spec 5.1, DESIGN 3.2: agents present an aa-agent+jwt)', () => {
  it('spec 5.1: accepts a token from a configured provider and returns the agent and its cnf key', async () => {
    const jwt = await agentToken({ providerKey, claims: { cnf: cnf() } });
    await expect(verifyAgentToken(jwt, providers, clock)).resolves.toEqual({
      agent: AGENT,
      cnfJwk: { kty: 'OKP', crv: 'Ed25519', x: agentKey.publicJwk.x },
      issuer: ISSUER,
    });
  });

  it('DESIGN 3.3: parent_agent marks a sub-agent', async () => {
    const jwt = await agentToken({ providerKey, claims: { sub: 'aauth:sub@agents.example', parent_agent: AGENT, cnf: cnf() } });
    const verified = await verifyAgentToken(jwt, providers, clock);
    expect(verified.parentAgent).toBe(AGENT);
  });

  it('spec 5.1: accepts an EdDSA-signed token', async () => {
    const edProvider = await keyPair('EdDSA');
    const jwt = await agentToken({ providerKey: edProvider, alg: 'EdDSA', claims: { cnf: cnf() } });
    const edProviders = [{ issuer: ISSUER, jwks: { keys: [{ ...edProvider.publicJwk, kty: 'OKP', kid: 'provider-1' }] } }];
    await expect(verifyAgentToken(jwt, edProviders, clock)).resolves.toMatchObject({ agent: AGENT });
  });

  it.each<[string, () => Promise<string>, string]>([
    ['a wrong typ', () => agentToken({ providerKey, typ: 'JWT', claims: { cnf: cnf() } }), 'invalid_agent_token'],
    ['an unknown issuer', () => agentToken({ providerKey, claims: { iss: 'https://evil.example', cnf: cnf() } }), 'unknown_issuer'],
    ['an expired token', () => agentToken({ providerKey, claims: { exp: NOW_SECONDS - 1, cnf: cnf() } }), 'expired_agent_token'],
    ['a token without exp', () => agentToken({ providerKey, claims: { exp: undefined, cnf: cnf() } }), 'invalid_agent_token'],
    ['iat in the future beyond skew', () => agentToken({ providerKey, claims: { iat: NOW_SECONDS + 120, cnf: cnf() } }), 'expired_agent_token'],
    ['a token without sub', () => agentToken({ providerKey, claims: { sub: undefined, cnf: cnf() } }), 'invalid_agent_token'],
    ['a token without cnf.jwk', () => agentToken({ providerKey }), 'invalid_agent_token'],
    ['a private cnf.jwk', () => agentToken({ providerKey, claims: { cnf: { jwk: agentKey.privateJwk } } }), 'invalid_agent_token'],
    ['parent_agent equal to sub', () => agentToken({ providerKey, claims: { parent_agent: AGENT, cnf: cnf() } }), 'invalid_agent_token'],
    ['an unknown kid', () => agentToken({ providerKey, kid: 'other', claims: { cnf: cnf() } }), 'invalid_agent_token'],
    ['a signature by another key', async () => agentToken({ providerKey: await keyPair('ES256'), claims: { cnf: cnf() } }), 'invalid_agent_token'],
  ])('spec 5.1: refuses %s', async (_what, token, reason) => {
    expect(await reasonOf(verifyAgentToken(await token(), providers, clock))).toBe(reason);
  });

  it('spec 5.1: refuses a provider without inline jwks (discovery not implemented yet)', async () => {
    const jwt = await agentToken({ providerKey, claims: { cnf: cnf() } });
    expect(await reasonOf(verifyAgentToken(jwt, [{ issuer: ISSUER, jwks_uri: 'https://agents.example/jwks' }], clock))).toBe('unknown_issuer');
  });

  it('spec 5.1: refuses something that is not a JWT', async () => {
    expect(await reasonOf(verifyAgentToken('a.b.c', providers, clock))).toBe('invalid_agent_token');
  });
});

describe('signatureKeyResolver with verifyRequestSignature (spec 5.1, DESIGN 3.2, end to end in memory)', () => {
  const REQUIRED = ['@method', '@authority', '@path', 'signature-key', 'content-type', 'content-digest'];

  function signed(request: HttpRequest, key: KeyPair, alg: 'ed25519' | 'ecdsa-p256-sha256'): HttpRequest {
    const fields = signRequest(request, { label: 'sig', components: REQUIRED, params: { created: NOW_SECONDS }, alg, privateKey: key.privateJwk as Record<string, string> });
    return { ...request, headers: { ...request.headers, 'Signature-Input': fields['signature-input'], Signature: fields.signature } };
  }

  function request(signatureKey: string): HttpRequest {
    const body = Buffer.from('{"operation":"status"}');
    return {
      method: 'POST',
      url: 'https://ps.example/mission',
      headers: { 'Content-Type': 'application/json', 'Content-Digest': contentDigest(body), 'Signature-Key': signatureKey },
    };
  }

  it('spec 5.1 / DESIGN 3.2: an agent-signed request with sig=jwt verifies and names the agent', async () => {
    const jwt = await agentToken({ providerKey, claims: { cnf: cnf() } });
    const message = signed(request(`sig=jwt;jwt="${jwt}"`), agentKey, 'ed25519');
    const resolver = signatureKeyResolver(message.headers, { principals: principalRegistry([]), agentProviders: providers, clock });
    await verifyRequestSignature(message, { label: 'sig', requiredComponents: REQUIRED, maxAgeSeconds: 60, clock, resolveKey: resolver.resolveKey });
    expect(resolver.caller()).toEqual({ kind: 'agent', agent: AGENT, issuer: ISSUER });
  });

  it('DESIGN 3.2: a request signed by a key other than the token cnf.jwk fails the signature check', async () => {
    const jwt = await agentToken({ providerKey, claims: { cnf: cnf() } });
    const message = signed(request(`sig=jwt;jwt="${jwt}"`), await keyPair('EdDSA'), 'ed25519');
    const resolver = signatureKeyResolver(message.headers, { principals: principalRegistry([]), agentProviders: providers, clock });
    await expect(
      verifyRequestSignature(message, { label: 'sig', requiredComponents: REQUIRED, maxAgeSeconds: 60, clock, resolveKey: resolver.resolveKey }),
    ).rejects.toMatchObject({ reason: 'invalid_signature' });
  });

  it('DESIGN 3.2: a person signs with sig=hwk and is resolved to the registered principal', async () => {
    const person = await keyPair('ES256');
    const alice = { id: 'alice', role: 'person' as const, jkt: await calculateJwkThumbprint(person.publicJwk), tenant: 't1' };
    const message = signed(request(`sig=hwk;kty="EC";crv="P-256";x="${person.publicJwk.x}";y="${person.publicJwk.y}"`), person, 'ecdsa-p256-sha256');
    const resolver = signatureKeyResolver(message.headers, { principals: principalRegistry([alice]), agentProviders: providers, clock });
    await verifyRequestSignature(message, { label: 'sig', requiredComponents: REQUIRED, maxAgeSeconds: 60, clock, resolveKey: resolver.resolveKey });
    expect(resolver.caller()).toEqual({ kind: 'principal', principal: alice });
  });

  it('DESIGN 3.3: jwks_uri is refused on incoming requests with unsupported_scheme', async () => {
    const message = signed(request('sig=jwks_uri;id="https://ps.example";dwk="aauth-person.json";kid="k1"'), agentKey, 'ed25519');
    const resolver = signatureKeyResolver(message.headers, { principals: principalRegistry([]), agentProviders: providers, clock });
    await expect(
      verifyRequestSignature(message, { label: 'sig', requiredComponents: REQUIRED, maxAgeSeconds: 60, clock, resolveKey: resolver.resolveKey }),
    ).rejects.toMatchObject({ reason: 'unsupported_scheme' });
    expect(() => resolver.caller()).toThrow();
  });
});
