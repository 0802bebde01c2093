import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { generateSigningKey, IssuerClient, MissionResourceServer, randomBase64url, type Mission } from '@mission/mission-client';
import { issuerClientKey } from './stack/demo-keys.js';
import { LocalResource } from './stack/local-resource.js';
import { Stack } from './stack/stack.js';
import { inMinutes, INVOICES, LEAF, REDIRECT_URI, ROOT_AUTHORITY } from './story/authority.js';

/**
 * The resource-server helper against tokens of the real issuer: DPoP-bound at+jwt, authority per action,
 * and the mission state per cascade mode (spec 3.3), including when the issuer is down or lies.
 */
describe('SDK resource-server helper (e2e)', () => {
  let stack: Stack;
  let clock = 0;
  const now = (): Date => new Date(Date.now() + clock);
  const client = (clientId: string, fetchImpl?: typeof fetch): Promise<IssuerClient> =>
    IssuerClient.discover({ issuer: stack.issuerUrl, clientId, clientKey: issuerClientKey(clientId), ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const root = async (): Promise<Mission> =>
    (await client('demo-agent')).obtainRootMission({ intent: { goal: 'Reconcile', resources: ['https://erp.example.com'], expiresAt: inMinutes(60) }, authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI });
  const childOf = async (parent: Mission, cascadeMode: 'immediate' | 'bounded_staleness' | 'status_required'): Promise<Mission> =>
    (await client('demo-subagent')).redeemChild(await parent.createChild({ actor: 'demo-subagent', authority: LEAF, expiresAt: inMinutes(30), cascadeMode }));
  const running: LocalResource[] = [];
  const guarded = async (options: { fetch?: typeof fetch; stalenessBoundSeconds?: number } = {}): Promise<LocalResource> =>
    track(await LocalResource.start(new MissionResourceServer({ issuer: await client('demo-admin', options.fetch), audience: INVOICES, now, ...(options.stalenessBoundSeconds ? { stalenessBoundSeconds: options.stalenessBoundSeconds } : {}) })));
  const track = (resource: LocalResource): LocalResource => (running.push(resource), resource);

  beforeAll(async () => {
    stack = await Stack.start({ issuerChildMissions: { experimental_cascade_modes: ['bounded_staleness', 'status_required'] } });
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);
  afterEach(async () => {
    clock = 0;
    await Promise.all(running.splice(0).map((resource) => resource.stop()));
  });

  it('accepts the DPoP-bound token for a granted action; refuses an action outside authorization_details (spec 2.5 rule 9)', async () => {
    const resource = await guarded();
    const child = await childOf(await root(), 'immediate');
    expect((await child.fetchResource('GET', resource.url)).status).toBe(200);
    const write = await child.fetchResource('POST', resource.url, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(write.status).toBe(403);
    expect(await write.json()).toMatchObject({ error: 'insufficient_authorization' });
  });

  it('refuses a replayed DPoP proof, a token without its proof, and a proof of another key (RFC 9449 §4.3, §11.1)', async () => {
    const resource = await guarded();
    const mission = await root();
    const ath = createHash('sha256').update(mission.accessToken).digest('base64url');
    const proof = await new SignJWT({ htm: 'GET', htu: resource.url, jti: randomBase64url(16), ath })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: mission.key.alg, jwk: mission.key.publicJwk }).setIssuedAt().sign(mission.key.privateKey);
    const send = (dpop: string): Promise<Response> => fetch(resource.url, { headers: { authorization: `DPoP ${mission.accessToken}`, dpop } });
    expect((await send(proof)).status).toBe(200);
    const replayed = await send(proof);
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    const other = await generateSigningKey('ES256');
    const foreignProof = await new SignJWT({ htm: 'GET', htu: resource.url, jti: 'x1', ath: undefined })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: other.publicJwk }).setIssuedAt().sign(other.privateKey);
    const foreign = await fetch(resource.url, { headers: { authorization: `DPoP ${mission.accessToken}`, dpop: foreignProof } });
    expect(foreign.status).toBe(401);
    const bare = await fetch(resource.url, { headers: { authorization: `DPoP ${mission.accessToken}` } });
    expect(bare.status).toBe(401);
  });

  it('immediate: a revoked parent stops its child at the next request (spec 3.2)', async () => {
    const resource = await guarded();
    const parent = await root();
    const child = await childOf(parent, 'immediate');
    expect((await child.fetchResource('GET', resource.url)).status).toBe(200);
    await (await client('demo-admin')).lifecycle(parent.id, 'revoke', { reason: 'stop' });
    const refused = await child.fetchResource('GET', resource.url);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'mission_not_active' });
  });

  it('status_required: a forged or a stale status answer, and an unreachable issuer, are refused (spec 3.3)', async () => {
    const parent = await root();
    const child = await childOf(parent, 'status_required');
    const forger = await generateSigningKey('ES256');
    let mode: 'real' | 'forged' | 'down' = 'real';
    const lying: typeof fetch = async (input, init) => {
      if (!String(input).endsWith('/missions/status') || mode === 'real') return fetch(input, init);
      if (mode === 'down') throw new TypeError('fetch failed');
      const jwt = await new SignJWT({ mission: { id: child.id, state: 'active', fresh_until: inMinutes(1).toISOString() }, nonce: new URLSearchParams(String(init!.body)).get('nonce') })
        .setProtectedHeader({ alg: 'ES256', typ: 'mission-status-response+jwt', kid: 'forged' }).setIssuer(stack.issuerUrl).setAudience('demo-admin').setIssuedAt().setExpirationTime('1m').sign(forger.privateKey);
      return new Response(jwt, { status: 200, headers: { 'content-type': 'application/mission-status-response+jwt' } });
    };
    const resource = await guarded({ fetch: lying });
    expect((await child.fetchResource('GET', resource.url)).status).toBe(200);
    mode = 'forged';
    clock = 120_000; // past the real answer's fresh_until: a new answer is needed
    const forged = await child.fetchResource('GET', resource.url);
    expect(forged.status).toBe(403);
    expect(await forged.json()).toMatchObject({ error: 'mission_state_unavailable' });
    mode = 'down';
    expect((await child.fetchResource('GET', resource.url)).status).toBe(403);
  });

  it('bounded_staleness: accepted while the last confirmed-active observation is within the bound, refused after it (spec 3.3)', async () => {
    const parent = await root();
    const child = await childOf(parent, 'bounded_staleness');
    let down = false;
    const flaky: typeof fetch = async (input, init) => (down && String(input).endsWith('/missions/status') ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
    const resource = await guarded({ fetch: flaky, stalenessBoundSeconds: 90 });
    expect((await child.fetchResource('GET', resource.url)).status).toBe(200);
    down = true;
    clock = 61_000; // past fresh_until (60 s), within the 90 s bound
    expect((await child.fetchResource('GET', resource.url)).status).toBe(200);
    clock = 95_000; // past the bound
    const refused = await child.fetchResource('GET', resource.url);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'mission_state_unavailable' });
  });
});
