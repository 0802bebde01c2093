import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { EventStore } from '@mission/event-store';
import { handleCommand, verifyHashChain } from '@mission/es-kit';
import { authorityHash, missionDecider, missionIdFromBytes, missionStreamName, parseAuthorizationDetails } from '@mission/issuer-domain';
import { issueAccessToken } from '@mission/issuer-oauth';
import { EVENT_STORE, SigningKeys, type RunningService } from '@mission/platform';
import { demoClient, postForm } from '../testing/demo-clients.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

let dataDir: string;
let service: RunningService;
let store: EventStore;
const post = (path: string, form: Record<string, string>) => postForm(service.listenUrl, path, form);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-missions-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const authoritySet = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['invoices.read'] }]);

/**
 * Seeds an approved mission the way approval does (the mission decider's `CreateMission`), so these tests
 * exercise lifecycle, status and introspection independently of the authorization flow.
 */
async function approvedMission(clientId = 'demo-agent', lifetimeMs = 3_600_000): Promise<string> {
  const missionId = missionIdFromBytes(randomBytes(16));
  const now = new Date();
  const expiresAt = new Date(now.getTime() + lifetimeMs);
  const actor = { id: clientId, role: 'approval_policy' };
  await handleCommand(
    store, missionStreamName(missionId), missionDecider,
    {
      type: 'CreateMission', missionId, issuer: testBaseUrl, clientId, authoritySet, authorityHash: authorityHash(testBaseUrl, authoritySet),
      intent: { goal: 'Reconcile invoices', resources: ['https://erp.example.com'], expires_at: expiresAt.toISOString() },
      expiresAt, approvedBy: actor, now,
    },
    { correlationId: randomUUID(), causationId: 'test-seed', actor, now },
    { hashChain: true },
  );
  return missionId;
}

async function lifecycle(form: Record<string, string>, clientId = 'demo-agent'): Promise<Response> {
  return post('/missions/lifecycle', { ...(await (await demoClient(clientId)).assertion()), ...form });
}

describe('POST /missions/lifecycle (issue 3 item 9, DESIGN 2.1)', () => {
  it('suspends, resumes and revokes, incrementing the version on every committed transition', async () => {
    const id = await approvedMission();
    const suspended = await lifecycle({ mission_id: id, operation: 'suspend', reason: 'paused by operator' });
    expect(suspended.status).toBe(200);
    expect(await suspended.json()).toEqual({ mission_id: id, state: 'suspended', version: 2 });
    expect(await (await lifecycle({ mission_id: id, operation: 'resume', reason: 'back' })).json()).toEqual({ mission_id: id, state: 'active', version: 3 });
    expect(await (await lifecycle({ mission_id: id, operation: 'revoke', reason: 'done with it' })).json()).toEqual({ mission_id: id, state: 'revoked', version: 4 });
  });

  it('records every transition with actor, reason and an intact hash chain (issue 3 item 10)', async () => {
    const id = await approvedMission();
    await lifecycle({ mission_id: id, operation: 'suspend', reason: 'audit me' });
    const events = [];
    for await (const event of store.readStream(missionStreamName(id))) events.push(event);
    expect(events.map((event) => event.type)).toEqual(['MissionCreated', 'MissionSuspended']);
    expect(events[1]!.data).toMatchObject({ actor: { id: 'demo-agent' }, reason: 'audit me', state: 'suspended', version: 2 });
    expect(await verifyHashChain(store, missionStreamName(id))).toMatchObject({ ok: true, events: 2 });
  });

  it('refuses a stale expected_version with 409 conflict / stale_version', async () => {
    const id = await approvedMission();
    await lifecycle({ mission_id: id, operation: 'suspend', reason: 'first', expected_version: '1' });
    const stale = await lifecycle({ mission_id: id, operation: 'resume', reason: 'second', expected_version: '1' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: 'conflict', reason: 'stale_version' });
  });

  it('answers a repeated nonce with the same result and no second event', async () => {
    const id = await approvedMission();
    const first = await (await lifecycle({ mission_id: id, operation: 'suspend', reason: 'x', nonce: 'n-1' })).json();
    await lifecycle({ mission_id: id, operation: 'resume', reason: 'y' });
    const again = await lifecycle({ mission_id: id, operation: 'suspend', reason: 'x', nonce: 'n-1' });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    expect(await store.streamRevision(missionStreamName(id))).toBe(2n);
    const reused = await lifecycle({ mission_id: id, operation: 'revoke', reason: 'x', nonce: 'n-1' });
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ reason: 'nonce_reuse' });
  });

  it('refuses to change a terminal mission', async () => {
    const id = await approvedMission();
    await lifecycle({ mission_id: id, operation: 'complete', reason: 'finished' });
    const reply = await lifecycle({ mission_id: id, operation: 'resume', reason: 'again' });
    expect(reply.status).toBe(409);
    expect(await reply.json()).toMatchObject({ error: 'conflict', reason: 'mission_completed' });
  });

  it('gives unknown and not-authorized missions the same 404 not_found (no oracle)', async () => {
    const foreign = await approvedMission('demo-consent-agent');
    const unknown = await lifecycle({ mission_id: missionIdFromBytes(randomBytes(16)), operation: 'revoke', reason: 'x' });
    const notYours = await lifecycle({ mission_id: foreign, operation: 'revoke', reason: 'x' });
    const malformed = await lifecycle({ mission_id: 'not-a-mission', operation: 'revoke', reason: 'x' });
    for (const reply of [unknown, notYours, malformed]) expect(reply.status).toBe(404);
    const bodies = await Promise.all([unknown.text(), notYours.text(), malformed.text()]);
    expect(new Set(bodies).size).toBe(1);
    const byAdmin = await lifecycle({ mission_id: foreign, operation: 'suspend', reason: 'ops' }, 'demo-admin');
    expect(byAdmin.status).toBe(200);
  });

  it.each([
    ['an unknown operation', { operation: 'delete', reason: 'x' }, 400, 'invalid_request'],
    ['a missing reason', { operation: 'revoke' }, 400, 'invalid_request'],
    ['a non-numeric expected_version', { operation: 'revoke', reason: 'x', expected_version: 'abc' }, 400, 'invalid_request'],
  ])('answers %s with a 4xx OAuth error', async (_, form, status, error) => {
    const id = await approvedMission();
    const reply = await lifecycle({ mission_id: id, ...form });
    expect(reply.status).toBe(status);
    expect(await reply.json()).toMatchObject({ error });
  });

  it('refuses a repeated parameter and an unauthenticated caller', async () => {
    const id = await approvedMission();
    const assertion = await (await demoClient('demo-agent')).assertion();
    const repeated = await fetch(`${service.listenUrl}/missions/lifecycle`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `${new URLSearchParams({ ...assertion, mission_id: id, reason: 'x' })}&operation=revoke&operation=suspend`,
    });
    expect(repeated.status).toBe(400);
    const anonymous = await post('/missions/lifecycle', { mission_id: id, operation: 'revoke', reason: 'x' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('POST /missions/status (issue 3 item 9, DESIGN 2.1)', () => {
  it('answers a signed application/mission-status-response+jwt with fresh_until ≤ iat + mission_max_stale_seconds', async () => {
    const id = await approvedMission();
    const reply = await post('/missions/status', { ...(await (await demoClient('demo-agent')).assertion()), mission_id: id, nonce: 'status-nonce' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/mission-status-response\+jwt/);
    const jwt = await reply.text();
    expect(decodeProtectedHeader(jwt).typ).toBe('mission-status-response+jwt');
    const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`)), { issuer: testBaseUrl, audience: 'demo-agent' });
    const mission = payload['mission'] as Record<string, unknown>;
    expect(mission).toMatchObject({ id, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, authoritySet), state: 'active', version: 1 });
    expect(Date.parse(String(mission['fresh_until'])) / 1000).toBeLessThanOrEqual(payload.iat! + 60);
    expect(payload['nonce']).toBe('status-nonce');
  });

  it('reports expiry before the stored state', async () => {
    const id = await approvedMission('demo-agent', 1500);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const jwt = await (await post('/missions/status', { ...(await (await demoClient('demo-agent')).assertion()), mission_id: id })).text();
    const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`)));
    expect((payload['mission'] as Record<string, unknown>)['state']).toBe('expired');
  });

  it('gives unknown missions 404 not_found', async () => {
    const reply = await post('/missions/status', { ...(await (await demoClient('demo-agent')).assertion()), mission_id: missionIdFromBytes(randomBytes(16)) });
    expect(reply.status).toBe(404);
    expect(await reply.json()).toEqual({ error: 'not_found' });
  });
});

describe('mission expiry process manager (issue 3 item 9: recorded as MissionExpired)', () => {
  it('records MissionExpired once expires_at passes', async () => {
    const id = await approvedMission('demo-agent', 1000);
    const deadline = Date.now() + 15_000;
    let types: string[] = [];
    while (Date.now() < deadline) {
      types = [];
      for await (const event of store.readStream(missionStreamName(id))) types.push(event.type);
      if (types.includes('MissionExpired')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(types).toEqual(['MissionCreated', 'MissionExpired']);
    expect(await verifyHashChain(store, missionStreamName(id))).toMatchObject({ ok: true });
  });
});

describe('POST /introspect (RFC 7662, issue 3 item 7)', () => {
  async function accessTokenFor(missionId: string): Promise<string> {
    const keys = service.app.get(SigningKeys);
    const { accessToken } = await issueAccessToken(
      {
        issuer: testBaseUrl, subject: 'demo-agent', audience: 'https://erp.example.com', clientId: 'demo-agent', jkt: 'x'.repeat(43),
        authorizationDetails: authoritySet as never, mission: { id: missionId, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, authoritySet) },
        missionExpiresAt: new Date(Date.now() + 3_600_000), issuedAt: new Date(), ttlSeconds: 300,
      },
      keys,
    );
    return accessToken;
  }
  const introspect = async (token: string, clientId = 'demo-agent') =>
    post('/introspect', { ...(await (await demoClient(clientId)).assertion()), token });

  it('is active only while the token is valid and its mission is active', async () => {
    const id = await approvedMission();
    const token = await accessTokenFor(id);
    const active = await (await introspect(token)).json();
    expect(active).toMatchObject({ active: true, client_id: 'demo-agent', token_type: 'DPoP', mission: { id, state: 'active', issuer: testBaseUrl } });
    await lifecycle({ mission_id: id, operation: 'revoke', reason: 'stop' });
    expect(await (await introspect(token)).json()).toEqual({ active: false, mission: { id, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, authoritySet), state: 'revoked' } });
  });

  it('answers a token it did not issue with {"active": false} only', async () => {
    expect(await (await introspect('not.a.token')).json()).toEqual({ active: false });
  });

  it('lets an admin introspect and refuses an unauthenticated caller', async () => {
    expect((await introspect('anything', 'demo-admin')).status).toBe(200);
    const anonymous = await post('/introspect', { token: 'x' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('malformed input at the token-side endpoints is a 4xx OAuth error, never a 5xx', () => {
  const withAssertion = async (form: Record<string, string>) => ({ ...(await (await demoClient('demo-agent')).assertion()), ...form });

  it.each([
    ['/introspect without a token', '/introspect', {}, 400, 'invalid_request'],
    ['/missions/status without a mission_id', '/missions/status', {}, 404, 'not_found'],
    ['/missions/lifecycle without an operation', '/missions/lifecycle', { mission_id: 'msn_AAAAAAAAAAAAAAAAAAAAAA', reason: 'x' }, 404, 'not_found'],
    ['/revoke without a token', '/revoke', {}, 400, 'invalid_request'],
  ])('%s', async (_, path, form, status, error) => {
    const reply = await post(path, await withAssertion(form));
    expect(reply.status).toBe(status);
    expect(await reply.json()).toMatchObject({ error });
  });

  it.each(['/introspect', '/missions/status', '/missions/lifecycle', '/revoke', '/token', '/par'])('%s refuses a JSON body', async (path) => {
    const reply = await fetch(`${service.listenUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"token":"x"}' });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: 'invalid_request' });
  });
});
