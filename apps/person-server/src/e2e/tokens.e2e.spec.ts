import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeJwt, jwtVerify, type JWK } from 'jose';
import { verifyHashChain } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import { missionStreamName, tokensStreamName } from '@mission/ps-domain';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { agentToken, freshKey, jwtSignatureKey, signedRequest, type TestKey } from '../testing/signed-request.spec-helper.js';
import { alice, ASSISTANT, eventually, events, headersExceptDateAndRequestId, newAgent, ops, PsClient, requestId, type Agent, type Reply } from '../testing/ps-http.spec-helper.js';
import { PROBE_FAILURES_PER_MINUTE } from '../abuse/probe-limiter.js';
import { FakeResource } from '../testing/fake-resource.js';
import { DEMO_RESOURCE, resourceToken } from '../testing/resource-tokens.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { authToken as authTokenAs, startWithFakeResource, tokenRequest as tokenRequestAs, type PersonServerWithResource } from '../testing/tokens.spec-helper.js';

const SUB_AGENT = 'aauth:helper@agents.example';
/** The agent config/person-server.json declares for the demo resource in `call_chain_agents` (ADR 0012). */
const FILES_SERVICE = 'aauth:files-service@agents.example';
const resource = new FakeResource();
let server: PersonServerWithResource;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);

// wait_ms and timeout_ms are generous so that "immediate results appear in the terminate response" holds on a loaded
// CI machine (a 200 answer that misses a tight timeout would read as a failure);
// terminate stops waiting as soon as every live token has a first answer.
const REVOCATION = { wait_ms: 5_000, max_attempts: 3, initial_delay_ms: 100, max_delay_ms: 300, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 8 };
beforeAll(async () => {
  server = await startWithFakeResource(resource, 'tokens', { revocation: REVOCATION });
  ({ service, store } = server);
});

afterAll(async () => server.stop());

async function jktOf(key: TestKey): Promise<string> {
  return calculateJwkThumbprint(key.publicJwk, 'sha256');
}

const tokenRequest = (agent: Agent, body: unknown, options: { rawBody?: string; tokenClaims?: Record<string, unknown> } = {}): Promise<Reply> =>
  tokenRequestAs(ps, agent, body, options);
const authToken = (agent: Agent, s256: string, extra: Record<string, unknown> = {}): Promise<Reply> => authTokenAs(ps, agent, s256, extra);

async function terminate(s256: string, reason = 'revoked', key = alice): Promise<Reply> {
  return ps.asPrincipal(key, { body: { operation: 'terminate', mission_s256: s256, reason, request_id: requestId(), ...(key === ops ? { purpose: 'test' } : {}) } });
}

async function psJwks(): Promise<ReturnType<typeof createLocalJWKSet>> {
  return createLocalJWKSet((await ps.get('/jwks')).json as { keys: JWK[] });
}

/** A syntactically valid Mission Reference that no mission has. */
function absentReference(label: string): string {
  return createHash('sha256').update(`absent ${label} ${Date.now()} ${Math.random()}`).digest('base64url');
}

/** The mission_probe events appended to security-audit after `before` (appends run in the background: flushed first). */
async function probesSince(before: number): Promise<{ data: Record<string, unknown>; text: string }[]> {
  await service.app.get(SecurityAudit).flush();
  return (await events(store, SECURITY_AUDIT_STREAM))
    .slice(before)
    .filter((event) => event.data['kind'] === 'mission_probe')
    .map(({ data, metadata }) => ({ data, text: JSON.stringify({ data, metadata }) }));
}

async function auditLength(): Promise<number> {
  await service.app.get(SecurityAudit).flush();
  return (await events(store, SECURITY_AUDIT_STREAM)).length;
}

describe('DESIGN 3.1 POST /token: auth tokens for a resource token under an active mission', () => {
  it('issues an aa-auth+jwt bound to the agent key, for the resource, with exp ≤ the mission expires_at', async () => {
    const agent = await newAgent();
    const expiresAt = new Date(Date.now() + 90_000).toISOString();
    const { s256 } = await ps.approvedMission(agent, { expiresAt });
    const reply = await authToken(agent, s256);
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    const token = String(reply.json['auth_token']);
    const { payload, protectedHeader } = await jwtVerify(token, await psJwks(), { issuer: testBaseUrl, audience: DEMO_RESOURCE, typ: 'aa-auth+jwt' });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload['agent']).toBe(agent.id);
    expect(payload['mission_s256']).toBe(s256);
    expect(payload['scope']).toBe('files.read');
    expect((payload['cnf'] as { jwk: JWK }).jwk).toEqual({ kty: agent.key.publicJwk.kty, crv: agent.key.publicJwk.crv, x: agent.key.publicJwk.x });
    expect(payload.exp! * 1000).toBeLessThanOrEqual(Date.parse(expiresAt));
    expect(reply.json['expires_in']).toBeLessThanOrEqual(90);
  });

  it('spec 2.6: the token is tracked on pstokens-<s256> by (iss, jti), aud, exp and revocation endpoint — never the token itself', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const reply = await authToken(agent, s256);
    const token = String(reply.json['auth_token']);
    const claims = decodeJwt(token);
    const log = await events(store, tokensStreamName(s256));
    expect(log.map((event) => event.type)).toEqual(['AuthTokenIssued']);
    expect(log[0]!.data).toMatchObject({
      approver: testBaseUrl,
      mission_s256: s256,
      sequence: 1,
      iss: testBaseUrl,
      jti: claims.jti,
      aud: DEMO_RESOURCE,
      exp: new Date(claims.exp! * 1000).toISOString(),
      origin: 'issued',
      revocation_endpoint: resource.endpoint,
      relationship: 'root',
      actor: { id: agent.id, role: 'agent' },
    });
    const logged = JSON.stringify(log.map(({ data, metadata }) => ({ data, metadata })));
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(token.split('.')[2]!);
    expect((await verifyHashChain(store, tokensStreamName(s256))).ok).toBe(true);
  });

  it('DESIGN 3.3: a sub-agent token makes the sub-agent key the holder and adds a sub_agent node', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const subKey = await freshKey();
    const subToken = await agentToken({ agentKey: subKey, claims: { sub: SUB_AGENT, parent_agent: agent.id, iat: Math.floor(Date.now() / 1000) - 5, exp: Math.floor(Date.now() / 1000) + 600 } });
    const rt = await resourceToken({ agent: SUB_AGENT, agentJkt: await jktOf(subKey), missionS256: s256, audience: testBaseUrl });
    const reply = await tokenRequest(agent, { resource_token: rt, subagent_token: subToken });
    expect(reply.status).toBe(200);
    const claims = decodeJwt(String(reply.json['auth_token']));
    expect(claims['agent']).toBe(SUB_AGENT);
    expect((claims['cnf'] as { jwk: JWK }).jwk.x).toBe(subKey.publicJwk.x);

    const tree = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect(tree.json['nodes']).toEqual([
      { agent: agent.id, relationship: 'root', tokens: [] },
      { agent: SUB_AGENT, relationship: 'sub_agent', parent_agent: agent.id, tokens: [{ iss: testBaseUrl, jti: claims.jti }] },
    ]);
    // Spec 2.7: an agent does not see other nodes' token identifiers.
    const agentView = await ps.asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect(agentView.json['nodes']).toEqual([
      { agent: agent.id, relationship: 'root', tokens: [] },
      { agent: SUB_AGENT, relationship: 'sub_agent', parent_agent: agent.id },
    ]);
  });

  it('spec 4.3: next_cursor when another page exists (complete false); the last page completes the tree', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    for (const sub of ['aauth:helper-1@agents.example', 'aauth:helper-2@agents.example']) {
      const subKey = await freshKey();
      const subToken = await agentToken({ agentKey: subKey, claims: { sub, parent_agent: agent.id, iat: Math.floor(Date.now() / 1000) - 5, exp: Math.floor(Date.now() / 1000) + 600 } });
      const rt = await resourceToken({ agent: sub, agentJkt: await jktOf(subKey), missionS256: s256, audience: testBaseUrl });
      expect((await tokenRequest(agent, { resource_token: rt, subagent_token: subToken })).status).toBe(200);
    }
    const first = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: 2 } });
    expect(first.json['complete']).toBe(false);
    expect((first.json['nodes'] as unknown[]).length).toBe(2);
    expect(typeof first.json['next_cursor']).toBe('string');
    const second = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: 2, cursor: first.json['next_cursor'] } });
    expect(second.json['complete']).toBe(true);
    expect(second.json['next_cursor']).toBeUndefined();
    expect((second.json['nodes'] as { agent: string; relationship: string }[]).map((node) => [node.agent, node.relationship])).toEqual([['aauth:helper-2@agents.example', 'sub_agent']]);
  });

  it('DESIGN 3.3: an upstream_token of this mission records a call_chain node under the upstream holder', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const upstream = String((await authToken(agent, s256)).json['auth_token']);
    const downstream = await newAgent(FILES_SERVICE);
    const rt = await resourceToken({ agent: downstream.id, agentJkt: await jktOf(downstream.key), missionS256: s256, audience: testBaseUrl });
    const reply = await tokenRequest(downstream, { resource_token: rt, upstream_token: upstream });
    expect(reply.status).toBe(200);
    const tree = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    const nodes = tree.json['nodes'] as Record<string, unknown>[];
    expect(nodes.map(({ agent: id, relationship, parent_agent }) => ({ id, relationship, parent_agent }))).toEqual([
      { id: agent.id, relationship: 'root', parent_agent: undefined },
      { id: downstream.id, relationship: 'call_chain', parent_agent: agent.id },
    ]);
  });

  it('spec 4.3 rule 4: an upstream_token of another mission or not issued by this PS creates no edge', async () => {
    const agent = await newAgent();
    const one = await ps.approvedMission(agent);
    const two = await ps.approvedMission(agent);
    const upstreamOfOne = String((await authToken(agent, one.s256)).json['auth_token']);
    const downstream = await newAgent(FILES_SERVICE);
    const rt = await resourceToken({ agent: downstream.id, agentJkt: await jktOf(downstream.key), missionS256: two.s256, audience: testBaseUrl });
    const reply = await tokenRequest(downstream, { resource_token: rt, upstream_token: upstreamOfOne });
    expect(reply.status).toBe(400);
    expect(reply.json['error']).toBe('invalid_request');
    const forged = await tokenRequest(downstream, { resource_token: rt, upstream_token: rt });
    expect(forged.status).toBe(400);
  });

  it('DESIGN 3.3, ADR 0012: a copied upstream_token presented by an agent its aud does not declare in call_chain_agents → 400 invalid_request, no tree edge', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const upstream = String((await authToken(agent, s256)).json['auth_token']);
    // Any agent of the trusted provider that got hold of the token: a stranger, or the upstream holder itself.
    for (const thief of [await newAgent('aauth:copier@agents.example'), await newAgent(agent.id)]) {
      const rt = await resourceToken({ agent: thief.id, agentJkt: await jktOf(thief.key), missionS256: s256, audience: testBaseUrl });
      const reply = await tokenRequest(thief, { resource_token: rt, upstream_token: upstream });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
      // Spec 5.9: the same refusal whether the resource token names the upstream's mission or an absent one.
      const elsewhere = await resourceToken({ agent: thief.id, agentJkt: await jktOf(thief.key), missionS256: absentReference('copied'), audience: testBaseUrl });
      const blind = await tokenRequest(thief, { resource_token: elsewhere, upstream_token: upstream });
      expect([blind.status, blind.text]).toEqual([reply.status, reply.text]);
    }
    // Spec 4.3 rule 4: no edge and no token from the refused requests.
    const tree = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect((tree.json['nodes'] as { agent: string; relationship: string }[]).map((node) => [node.agent, node.relationship])).toEqual([[agent.id, 'root']]);
    expect((await events(store, tokensStreamName(s256))).map((event) => event.type)).toEqual(['AuthTokenIssued']);
  });
});

describe('POST /token refuses bad input with a clear 4xx (never a 5xx)', () => {
  let agent: Agent;
  let s256: string;
  beforeAll(async () => {
    agent = await newAgent();
    ({ s256 } = await ps.approvedMission(agent));
  });

  const cases: [string, number, string, () => Promise<Reply>][] = [
    ['no body', 400, 'invalid_request', () => tokenRequest(agent, undefined, { rawBody: '' })],
    ['not JSON', 400, 'invalid_request', () => tokenRequest(agent, undefined, { rawBody: '{"resource_token":' })],
    ['duplicate member names', 400, 'invalid_request', () => tokenRequest(agent, undefined, { rawBody: '{"resource_token":"a","resource_token":"b"}' })],
    ['an array', 400, 'invalid_request', () => tokenRequest(agent, [])],
    ['resource_token missing', 400, 'invalid_request', () => tokenRequest(agent, {})],
    ['resource_token not a string', 400, 'invalid_request', () => tokenRequest(agent, { resource_token: 42 })],
    ['resource_token too long', 400, 'invalid_request', () => tokenRequest(agent, { resource_token: 'a'.repeat(20_000) })],
    ['resource_token not a JWT', 400, 'invalid_request', () => tokenRequest(agent, { resource_token: 'not-a-jwt' })],
  ];
  it.each(cases)('%s → %i %s', async (_name, status, error, run) => {
    const reply = await run();
    expect(reply.status).toBe(status);
    expect(reply.json['error']).toBe(error);
    expect(reply.headers['content-type']).toContain('application/problem+json');
  });

  it('a resource token with the wrong typ, audience, issuer, agent or key is invalid_request', async () => {
    const jkt = await jktOf(agent.key);
    const other = await freshKey();
    const variants = [
      await resourceToken({ agent: agent.id, agentJkt: jkt, missionS256: s256, audience: testBaseUrl, typ: 'JWT' }),
      await resourceToken({ agent: agent.id, agentJkt: jkt, missionS256: s256, audience: 'https://other-ps.example' }),
      await resourceToken({ agent: 'aauth:someone-else@agents.example', agentJkt: jkt, missionS256: s256, audience: testBaseUrl }),
      await resourceToken({ agent: agent.id, agentJkt: await jktOf(other), missionS256: s256, audience: testBaseUrl }),
      await resourceToken({ agent: agent.id, agentJkt: jkt, missionS256: 'not-a-digest', audience: testBaseUrl }),
      await resourceToken({ agent: agent.id, agentJkt: jkt, missionS256: s256, audience: testBaseUrl, lifetimeSeconds: -5 }),
    ];
    for (const rt of variants) {
      const reply = await tokenRequest(agent, { resource_token: rt });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    }
  });

  it('subagent_token and upstream_token together, or a subagent_token not naming the caller as parent, are invalid_request', async () => {
    const rt = await resourceToken({ agent: agent.id, agentJkt: await jktOf(agent.key), missionS256: s256, audience: testBaseUrl });
    expect((await tokenRequest(agent, { resource_token: rt, subagent_token: 'x', upstream_token: 'y' })).status).toBe(400);
    const subKey = await freshKey();
    const orphan = await agentToken({ agentKey: subKey, claims: { sub: SUB_AGENT, parent_agent: 'aauth:someone-else@agents.example' } });
    const subRt = await resourceToken({ agent: SUB_AGENT, agentJkt: await jktOf(subKey), missionS256: s256, audience: testBaseUrl });
    const reply = await tokenRequest(agent, { resource_token: subRt, subagent_token: orphan });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
  });

  it('DESIGN 3.3: a sub-agent signing its own token request is refused (403 access_denied)', async () => {
    const sub = await newAgent(SUB_AGENT);
    const rt = await resourceToken({ agent: SUB_AGENT, agentJkt: await jktOf(sub.key), missionS256: s256, audience: testBaseUrl });
    const reply = await tokenRequest(sub, { resource_token: rt }, { tokenClaims: { parent_agent: agent.id } });
    expect([reply.status, reply.json['error']]).toEqual([403, 'access_denied']);
  });

  it('a Management Principal cannot request auth tokens (403 access_denied)', async () => {
    const reply = await ps.asPrincipal(alice, { path: '/token', body: { resource_token: 'x' } });
    expect([reply.status, reply.json['error']]).toEqual([403, 'access_denied']);
  });

  it('spec 5.9: an unknown mission and another agent’s mission give the same 404 mission_not_found: status, body bytes and header set', async () => {
    const stranger = await newAgent('aauth:researcher@agents.example');
    const absent = await authToken(stranger, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const notOwned = await authToken(stranger, s256);
    expect([absent.status, absent.json['error']]).toEqual([404, 'mission_not_found']);
    expect(notOwned.status).toBe(absent.status);
    expect(notOwned.text).toBe(absent.text);
    expect(headersExceptDateAndRequestId(notOwned)).toEqual(headersExceptDateAndRequestId(absent));
  });

  it('an unsigned request is 401 with Signature-Error', async () => {
    const reply = await ps.send({ method: 'POST', originalUrl: '/token', headers: { 'content-type': 'application/json' }, rawBody: Buffer.from('{}') });
    expect(reply.status).toBe(401);
    expect(reply.headers['signature-error']).toBeDefined();
  });
});

describe('spec 5.9, 6, 8: POST /token probes are security-audited and rate limited like the management operations', () => {
  it('spec 5.9, 6: an absent and a not-owned reference are recorded in security-audit as mission_probe with the keyed digest only, and create no mission record', async () => {
    const owner = await newAgent();
    const { s256 } = await ps.approvedMission(owner);
    // An agent of its own, so the audit's repeat suppression and the probe budget of other tests do not interfere.
    const prober = await newAgent('aauth:auditor-probe@agents.example');
    const absent = absentReference('audit');
    const before = await auditLength();
    expect((await authToken(prober, absent)).status).toBe(404);
    expect((await authToken(prober, s256)).status).toBe(404);
    const probes = await probesSince(before);
    const audit = service.app.get(SecurityAudit);
    expect(probes.map(({ data }) => [data['reason'], data['mission_ref_hmac'], data['path'], data['caller_role']])).toEqual([
      ['absent', audit.missionReferenceDigest(absent), '/token', 'agent'],
      ['not_authorized', audit.missionReferenceDigest(s256), '/token', 'agent'],
    ]);
    for (const { text } of probes) {
      expect(text).not.toContain(absent);
      expect(text).not.toContain(s256);
    }
    // Spec 6: the probe creates no false mission record, and no token record either.
    expect(await events(store, missionStreamName(absent))).toEqual([]);
    expect(await events(store, tokensStreamName(absent))).toEqual([]);
    expect((await events(store, tokensStreamName(s256))).map((event) => event.type)).toEqual([]);
  });

  it('spec 5.9, 8: after its allowance of failed lookups the caller gets 429 rate_limited with Retry-After, before any lookup', async () => {
    const prober = await newAgent('aauth:limit-probe@agents.example');
    const replies: Reply[] = [];
    // The allowance refills at PROBE_FAILURES_PER_MINUTE per minute, so a slow machine may get a few more through.
    while (replies.length < 3 * PROBE_FAILURES_PER_MINUTE) {
      const reply = await authToken(prober, absentReference(`limit ${replies.length}`));
      replies.push(reply);
      if (reply.status !== 404) break;
    }
    const refused = replies.at(-1)!;
    expect([refused.status, refused.json['error']]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const failures = replies.slice(0, -1);
    expect(failures.length).toBeGreaterThanOrEqual(PROBE_FAILURES_PER_MINUTE);
    expect(failures.every((reply) => reply.json['error'] === 'mission_not_found')).toBe(true);
    // Blocked whatever it names: another reference is refused the same way, without a lookup.
    const again = await authToken(prober, absentReference('limit again'));
    expect([again.status, again.json['error']]).toEqual([429, 'rate_limited']);
    // One budget per caller across endpoints: the management operations refuse it too.
    const status = await ps.asAgent(prober, { body: { operation: 'status', mission_s256: absentReference('limit status') } });
    expect([status.status, status.json['error']]).toEqual([429, 'rate_limited']);
    // The limit is the caller's: another agent still gets its own answer.
    expect((await authToken(await newAgent('aauth:bystander@agents.example'), absentReference('bystander'))).status).toBe(404);
  }, 60_000);
});

describe('spec 3 rule 3: after termination every token request under the mission is mission_terminated', () => {
  it('answers 403 mission_terminated with mission_status and the first termination_reason', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    expect((await authToken(agent, s256)).status).toBe(200);
    expect((await terminate(s256, 'completed')).status).toBe(200);
    const reply = await authToken(agent, s256);
    expect(reply.status).toBe(403);
    expect(reply.json).toMatchObject({ error: 'mission_terminated', mission_status: 'terminated', termination_reason: 'completed' });
  });

  it('spec 3 (expires_at reached): a token request after expires_at records the expiry and is mission_terminated expired', async () => {
    const agent = await newAgent();
    // Far enough ahead that proposal, approval and poll finish before it on a slow, loaded machine (an approval whose
    // expires_at has passed is refused); then wait until it has passed, however long the approval took.
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const { s256 } = await ps.approvedMission(agent, { expiresAt });
    expect((await authToken(agent, s256)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 100));
    const reply = await authToken(agent, s256);
    expect(reply.json).toMatchObject({ error: 'mission_terminated', termination_reason: 'expired' });
    // Spec 2.8: the expiry's MissionTerminated — recorded by this request or the scheduler, whichever came first — carries the token impact.
    const terminated = (await events(store, missionStreamName(s256))).find((event) => event.type === 'MissionTerminated');
    expect(terminated?.data['token_impact']).toMatchObject({ tracked: 1 });
  });
});

describe('spec 4.4 / 2.5: revocation after termination and token_residual', () => {
  afterEach(async () => resource.setMode('ok'));

  it('confirms every tracked token at once against a resource that answers 200, signed by the PS', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const jtis: string[] = [];
    for (let index = 0; index < 3; index++) jtis.push(String(decodeJwt(String((await authToken(agent, s256)).json['auth_token'])).jti));
    const reply = await terminate(s256);
    expect(reply.status).toBe(200);
    expect(reply.json['token_residual']).toEqual({ tracked: 3, revocation_attempted: 3, revocation_confirmed: 3, complete: false });
    for (const jti of jtis) expect(resource.callsFor(jti)).toBe(1);
    const call = resource.calls.find((entry) => entry.jti === jtis[0])!;
    expect(call.iss).toBe(testBaseUrl);
    expect(call.signed).toBe(true);
    expect(call.signatureKey).toMatch(/^sig=jwks_uri;id="http:\/\/person-server\.test";dwk="aauth-person\.json";kid="/);
    const log = await events(store, tokensStreamName(s256));
    expect(log.filter((event) => event.type === 'TokenRevocationAttempted')).toHaveLength(3);
    expect(log.filter((event) => event.type === 'TokenRevocationConfirmed')).toHaveLength(3);
    expect((await verifyHashChain(store, tokensStreamName(s256))).ok).toBe(true);
  });

  it('a failing resource that recovers: unconfirmed with residual_until first, confirmed by a retry later, never twice', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const token = decodeJwt(String((await authToken(agent, s256)).json['auth_token']));
    await resource.setMode('fail');
    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toEqual({
      tracked: 1,
      revocation_attempted: 1,
      revocation_confirmed: 0,
      residual_until: new Date(token.exp! * 1000).toISOString(),
      complete: false,
    });
    await resource.setMode('ok');
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationConfirmed'));
    const log = await events(store, tokensStreamName(s256));
    expect(log.filter((event) => event.type === 'TokenRevocationFailed')[0]?.data).toMatchObject({ outcome: 'server_error', http_status: 500, attempt: 1 });
    expect(log.filter((event) => event.type === 'TokenRevocationConfirmed')).toHaveLength(1);
    // A later authorized terminate returns the terminal status with the residual as it is now.
    const late = await terminate(s256, 'revoked', ops);
    expect(late.json['token_residual']).toEqual({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 1, complete: false });
  });

  it('a resource that never answers: timeouts stay unconfirmed, retries are bounded, the residual stays reported', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const token = decodeJwt(String((await authToken(agent, s256)).json['auth_token']));
    await resource.setMode('hang');
    const started = Date.now();
    const reply = await terminate(s256);
    // Not held up by the resource: terminate answers once the call's timeout gave the token its first answer, before
    // wait_ms runs out (timeout_ms is 1 s; the rest of wait_ms is the margin a slow, loaded machine needs for the request).
    expect(Date.now() - started).toBeLessThan(REVOCATION.wait_ms);
    expect(reply.json['token_residual']).toMatchObject({ tracked: 1, revocation_confirmed: 0, residual_until: new Date(token.exp! * 1000).toISOString(), complete: false });
    // Three rounds of a 1 s timeout each, with back-off between: a generous deadline for a loaded machine.
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationStopped'), 30_000);
    const log = await events(store, tokensStreamName(s256));
    const failures = log.filter((event) => event.type === 'TokenRevocationFailed');
    expect(failures.length).toBe(3);
    expect(failures.every((event) => event.data['outcome'] === 'timeout')).toBe(true);
    expect(log.find((event) => event.type === 'TokenRevocationStopped')?.data['reason']).toBe('attempts_exhausted');
    expect(resource.callsFor(String(token.jti))).toBe(3);
  }, 60_000);

  it('an unreachable endpoint (connection refused) stays unconfirmed as unreachable', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await authToken(agent, s256);
    await resource.setMode('refuse');
    const reply = await terminate(s256);
    expect(reply.json['token_residual']).toMatchObject({ tracked: 1, revocation_attempted: 1, revocation_confirmed: 0 });
    const log = await events(store, tokensStreamName(s256));
    expect(log.find((event) => event.type === 'TokenRevocationFailed')?.data['outcome']).toBe('unreachable');
  });

  it('spec 4.2 step 3: termination commits even when revocation cannot proceed; status reads terminated at once', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await authToken(agent, s256);
    await resource.setMode('hang');
    const reply = await terminate(s256);
    expect(reply.json['mission_status']).toBe('terminated');
    const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json['mission_status']).toBe('terminated');
  });
});

// Keep the helpers referenced by name for readers: the signed-request helpers are used through PsClient.
void signedRequest;
void jwtSignatureKey;
void ASSISTANT;
