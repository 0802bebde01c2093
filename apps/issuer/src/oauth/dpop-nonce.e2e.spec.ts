import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createPkcePair, DpopKey } from '@mission/mission-client';
import { ConfigError, type RunningService } from '@mission/platform';
import { systemClock } from '@mission/issuer-oauth';
import { demoClient, postForm } from '../testing/demo-clients.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';
import { dpopNoncesFromEnvironment } from './dpop-nonce-config.js';

describe('DPOP_NONCE_SECRET validation', () => {
  it('leaves nonces off when unset and refuses a short or malformed secret naming the variable', () => {
    expect(dpopNoncesFromEnvironment({}, systemClock)).toBeUndefined();
    expect(() => dpopNoncesFromEnvironment({ DPOP_NONCE_SECRET: randomBytes(16).toString('base64url') }, systemClock)).toThrow(ConfigError);
    expect(() => dpopNoncesFromEnvironment({ DPOP_NONCE_SECRET: 'not base64url!' }, systemClock)).toThrow(/DPOP_NONCE_SECRET/);
    expect(dpopNoncesFromEnvironment({ DPOP_NONCE_SECRET: randomBytes(32).toString('base64url') }, systemClock)).toBeDefined();
  });
});

describe('DPoP-Nonce at the token endpoint (RFC 9449 §8)', () => {
  let dataDir: string;
  let service: RunningService;
  const saved = process.env['DPOP_NONCE_SECRET'];
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'issuer-nonce-'));
    process.env['DPOP_NONCE_SECRET'] = randomBytes(32).toString('base64url');
    ({ service } = await startIssuer(dataDir));
  });
  afterAll(async () => {
    await service.stop('tests finished');
    if (saved === undefined) delete process.env['DPOP_NONCE_SECRET'];
    else process.env['DPOP_NONCE_SECRET'] = saved;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('asks for a nonce with use_dpop_nonce and accepts the proof that carries it', async () => {
    const client = await demoClient('demo-agent');
    const pkce = createPkcePair();
    const par = await postForm(service.listenUrl, '/par', {
      ...(await client.assertion()),
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:9000/cb',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      mission_intent: JSON.stringify({ intent: { goal: 'nonce test', resources: ['https://erp.example.com'], expires_at: new Date(Date.now() + 3_600_000).toISOString() } }),
      authorization_details: JSON.stringify([{ type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['invoices.read'] }]),
    });
    expect(par.status).toBe(201);
    // RFC 9449 §8.2: the PAR endpoint offers a nonce on success too.
    expect(par.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const { request_uri } = (await par.json()) as { request_uri: string };
    const authorize = await fetch(`${service.listenUrl}/authorize?${new URLSearchParams({ client_id: 'demo-agent', request_uri })}`, { redirect: 'manual' });
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
    const dpop = await DpopKey.generate();
    const withAssertion = async (proof: string) =>
      postForm(service.listenUrl, '/token', { ...(await client.assertion()), grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9000/cb', code_verifier: pkce.verifier }, { DPoP: proof });

    const first = await withAssertion(await dpop.proof('POST', `${testBaseUrl}/token`));
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ error: 'use_dpop_nonce' });
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const second = await withAssertion(await dpop.proof('POST', `${testBaseUrl}/token`, { nonce: nonce! }));
    expect(second.status).toBe(200);
    expect(second.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
