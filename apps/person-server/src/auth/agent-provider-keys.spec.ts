import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import { AgentProviderKeys, AgentProviderUnavailableError } from './agent-provider-keys.js';
import {
  AGENT,
  agentRequest,
  agentToken,
  demoAuthenticator,
  failureOf,
  freshKey,
  jwtSignatureKey,
  signedRequest,
  without,
  type TestKey,
} from '../testing/signed-request.spec-helper.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A local agent provider: serves whatever the current handler says and counts requests per path. */
class LocalProvider {
  readonly hits = new Map<string, number>();
  handler: Handler = (_request, response) => response.writeHead(404).end();
  private server!: Server;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.hits.set(request.url ?? '', (this.hits.get(request.url ?? '') ?? 0) + 1);
      this.handler(request, response);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function json(body: unknown): Handler {
  return (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function publicKey(key: TestKey, kid: string): JWK {
  return { ...without(key.privateJwk, 'd'), kid, alg: 'ES256', use: 'sig' };
}

let provider: LocalProvider;
let providerKey1: TestKey;
let providerKey2: TestKey;

beforeAll(async () => {
  providerKey1 = await freshKey('ES256');
  providerKey2 = await freshKey('ES256');
});

beforeEach(async () => {
  provider = new LocalProvider();
  await provider.start();
});

afterEach(async () => {
  await provider.stop();
});

describe('AgentProviderKeys (DESIGN 5: an agent provider may give jwks_uri or be discovered instead of inline jwks)', () => {
  it('DESIGN 5: inline jwks are used as configured, without any fetch', async () => {
    const jwks = { keys: [{ ...publicKey(providerKey1, 'k1') } as { kty: string }] };
    const keys = new AgentProviderKeys([{ issuer: 'https://agents.example', jwks }], { fetch: () => Promise.reject(new Error('no fetch expected')) });
    await expect(keys.providerFor('https://agents.example', 'k1')).resolves.toEqual({ issuer: 'https://agents.example', jwks });
  });

  it('DESIGN 5: jwks_uri keys are fetched once and cached', async () => {
    provider.handler = json({ keys: [publicKey(providerKey1, 'k1')] });
    const keys = new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }]);
    const first = await keys.providerFor(provider.origin, 'k1');
    await keys.providerFor(provider.origin, 'k1');
    expect(first.jwks?.keys.map((key) => key['kid'])).toEqual(['k1']);
    expect(provider.hitsOf('/jwks')).toBe(1);
  });

  it('DESIGN 5: without jwks and jwks_uri, the jwks_uri comes from /.well-known/aauth-agent.json', async () => {
    provider.handler = (request, response) =>
      request.url === '/.well-known/aauth-agent.json'
        ? json({ issuer: provider.origin, jwks_uri: `${provider.origin}/keys` })(request, response)
        : json({ keys: [publicKey(providerKey1, 'k1')] })(request, response);
    const keys = new AgentProviderKeys([{ issuer: provider.origin }]);
    await expect(keys.providerFor(provider.origin, 'k1')).resolves.toMatchObject({ jwks: { keys: [expect.objectContaining({ kid: 'k1' })] } });
    expect(provider.hitsOf('/.well-known/aauth-agent.json')).toBe(1);
    expect(provider.hitsOf('/keys')).toBe(1);
  });

  it('DESIGN 5: metadata naming another issuer is not used', async () => {
    provider.handler = json({ issuer: 'https://someone-else.example', jwks_uri: `${provider.origin}/keys` });
    const keys = new AgentProviderKeys([{ issuer: provider.origin }]);
    await expect(keys.providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
  });

  it('DESIGN 5 (jwks_uri): an unknown kid refreshes the keys once; within the refresh interval it does not fetch again', async () => {
    let now = 0;
    provider.handler = json({ keys: [publicKey(providerKey1, 'k1')] });
    const keys = new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }], { nowMs: () => now, unknownKidRefreshIntervalMs: 1_000 });
    await keys.providerFor(provider.origin, 'k1');
    provider.handler = json({ keys: [publicKey(providerKey1, 'k1'), publicKey(providerKey2, 'k2')] });
    now = 500;
    const early = await keys.providerFor(provider.origin, 'k2');
    expect(early.jwks?.keys.map((key) => key['kid'])).toEqual(['k1']);
    expect(provider.hitsOf('/jwks')).toBe(1);
    now = 1_500;
    const rotated = await keys.providerFor(provider.origin, 'k2');
    expect(rotated.jwks?.keys.map((key) => key['kid'])).toEqual(['k1', 'k2']);
    await keys.providerFor(provider.origin, 'k3');
    expect(provider.hitsOf('/jwks')).toBe(2);
  });

  it('DESIGN 5 (jwks_uri): cached keys expire after maxAgeMs and are fetched again; a failed refresh keeps the earlier keys', async () => {
    let now = 0;
    const stale: string[] = [];
    provider.handler = json({ keys: [publicKey(providerKey1, 'k1')] });
    const keys = new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }], {
      nowMs: () => now,
      maxAgeMs: 10_000,
      onStaleKeys: (issuer) => stale.push(issuer),
    });
    await keys.providerFor(provider.origin, 'k1');
    provider.handler = (_request, response) => response.writeHead(500).end();
    now = 20_000;
    await expect(keys.providerFor(provider.origin, 'k1')).resolves.toMatchObject({ jwks: { keys: [expect.objectContaining({ kid: 'k1' })] } });
    expect(provider.hitsOf('/jwks')).toBe(2);
    expect(stale).toEqual([provider.origin]);
  });

  it('DESIGN 5 (jwks_uri): a provider that does not answer within the timeout is unavailable', async () => {
    provider.handler = () => undefined; // never answers
    const keys = new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }], { fetchTimeoutMs: 200 });
    const started = Date.now();
    await expect(keys.providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('DESIGN 5 (jwks_uri): oversized, non-JSON, redirected or keyless documents are refused', async () => {
    const keysFor = (): AgentProviderKeys => new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }], { maxDocumentBytes: 1_000 });
    provider.handler = json({ keys: [], padding: 'x'.repeat(2_000) });
    await expect(keysFor().providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
    provider.handler = (_request, response) => response.writeHead(200).end('not json');
    await expect(keysFor().providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
    provider.handler = (_request, response) => response.writeHead(302, { location: 'http://127.0.0.1:1/jwks' }).end();
    await expect(keysFor().providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
    provider.handler = json({ nokeys: true });
    await expect(keysFor().providerFor(provider.origin, 'k1')).rejects.toBeInstanceOf(AgentProviderUnavailableError);
  });

  it('DESIGN 3.1 (ES256/Ed25519 keys with kid): only public signing keys with a kid are kept from a fetched JWKS', async () => {
    provider.handler = json({
      keys: [
        publicKey(providerKey1, 'k1'),
        { ...providerKey2.privateJwk, kid: 'private' },
        { ...publicKey(providerKey2, 'enc'), use: 'enc' },
        { kty: 'RSA', n: 'abc', e: 'AQAB', kid: 'rsa' },
        { ...publicKey(providerKey2, 'x'), kid: undefined },
      ],
    });
    const keys = new AgentProviderKeys([{ issuer: provider.origin, jwks_uri: `${provider.origin}/jwks` }]);
    const resolved = await keys.providerFor(provider.origin, 'k1');
    expect(resolved.jwks?.keys.map((key) => key['kid'])).toEqual(['k1']);
    expect(resolved.jwks?.keys[0]).not.toHaveProperty('d');
  });
});

describe('RequestAuthenticator with a jwks_uri agent provider (DESIGN 3.2, 5)', () => {
  it('DESIGN 5: an Agent Token of a provider configured by jwks_uri verifies with the fetched keys; a rotated key is picked up', async () => {
    const providerJwk = (key: TestKey, kid: string): JWK => ({ ...key.privateJwk, kid });
    provider.handler = json({ keys: [publicKey(providerKey1, 'k1')] });
    let now = 0;
    const agentProviders = new AgentProviderKeys([{ issuer: 'https://agents.example', jwks_uri: `${provider.origin}/jwks` }], {
      nowMs: () => now,
      unknownKidRefreshIntervalMs: 1_000,
    });
    const { authenticator } = demoAuthenticator({ agentProviders });
    const agentKey = await freshKey();
    const first = await agentToken({ agentKey, providerJwk: providerJwk(providerKey1, 'k1') });
    await expect(authenticator.authenticate(signedRequest({ key: agentKey, signatureKey: jwtSignatureKey(first) }))).resolves.toMatchObject({ agent: AGENT });

    provider.handler = json({ keys: [publicKey(providerKey2, 'k2')] });
    now = 5_000;
    const rotated = await agentToken({ agentKey, providerJwk: providerJwk(providerKey2, 'k2'), claims: { jti: 'second' } });
    await expect(authenticator.authenticate(signedRequest({ key: agentKey, signatureKey: jwtSignatureKey(rotated) }))).resolves.toMatchObject({ agent: AGENT });
    expect(provider.hitsOf('/jwks')).toBe(2);
  });

  it('DESIGN 3.2: when the provider keys cannot be fetched the request is refused (401 agent_provider_unavailable)', async () => {
    provider.handler = (_request, response) => response.writeHead(503).end();
    const agentProviders = new AgentProviderKeys([{ issuer: 'https://agents.example', jwks_uri: `${provider.origin}/jwks` }]);
    const { authenticator } = demoAuthenticator({ agentProviders });
    await expect(failureOf(authenticator.authenticate(await agentRequest()))).resolves.toBe('agent_provider_unavailable');
  });
});
