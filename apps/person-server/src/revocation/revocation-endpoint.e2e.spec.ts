import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { verifyHashChain } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import { tokensStreamName } from '@mission/ps-domain';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { signedRequest, without } from '../testing/signed-request.spec-helper.js';
import { alice, events, headersExceptDateAndRequestId, newAgent, PsClient, requestId, type Agent, type Reply } from '../testing/ps-http.spec-helper.js';
import { FakeResource } from '../testing/fake-resource.js';
import { DEMO_RESOURCE, resourceToken } from '../testing/resource-tokens.js';
import { repositoryRoot, testBaseUrl } from '../testing/run-person-server.js';
import { authToken, startWithFakeResource, tokenRequest, type PersonServerWithResource } from '../testing/tokens.spec-helper.js';

/** The agent config/person-server.json declares for the demo resource in `call_chain_agents` (ADR 0012). */
const FILES_SERVICE = 'aauth:files-service@agents.example';
const RESOURCE_KEY = JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys/ps-resource-files.example.private.jwk.json'), 'utf8')) as JWK;
const resource = new FakeResource();
let server: PersonServerWithResource;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);
let tick = 0;

beforeAll(async () => {
  server = await startWithFakeResource(resource, 'revoke', { revocation: { wait_ms: 3_000, max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 200, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 8 } });
  ({ service, store } = server);
});

afterAll(async () => server.stop());

/** `POST /revoke` signed by `agent` (its Agent Token in Signature-Key). */
const revokeAsAgent = (agent: Agent, body: unknown): Promise<Reply> => ps.asAgent(agent, { path: '/revoke', body });

/** `POST /revoke` signed by the demo resource (https://files.example) with its configured key (ADR 0016). */
function revokeAsResource(body: unknown): Promise<Reply> {
  const publicJwk = without(RESOURCE_KEY, 'd');
  return ps.send(
    signedRequest({
      key: { privateJwk: RESOURCE_KEY, publicJwk, alg: 'ecdsa-p256-sha256' },
      signatureKey: `sig=jwks_uri;id="${DEMO_RESOURCE}";dwk="aauth-resource.json";kid="${RESOURCE_KEY.kid}"`,
      signedUrl: testBaseUrl,
      path: '/revoke',
      created: Math.floor(Date.now() / 1000) - (tick++ % 30),
      body: JSON.stringify(body),
    }),
  );
}

async function issuedToken(agent: Agent, s256: string): Promise<{ token: string; jti: string }> {
  const reply = await authToken(ps, agent, s256);
  expect(reply.status).toBe(200);
  const token = String(reply.json['auth_token']);
  return { token, jti: String(decodeJwt(token).jti) };
}

/** A call-chain request by the demo resource's onward agent presenting `upstream` (DESIGN 3.3, ADR 0012). */
async function callOnwards(s256: string, upstream: string): Promise<Reply> {
  const downstream = await newAgent(FILES_SERVICE);
  const rt = await resourceToken({ agent: downstream.id, agentJkt: await calculateJwkThumbprint(downstream.key.publicJwk, 'sha256'), missionS256: s256, audience: testBaseUrl });
  return tokenRequest(ps, downstream, { resource_token: rt, upstream_token: upstream });
}

const revokedEvents = async (s256: string) => (await events(store, tokensStreamName(s256))).filter((event) => event.type === 'AuthTokenRevoked');

describe('the PS revocation endpoint (DESIGN 3.1, ADR 0016)', () => {
  afterEach(async () => resource.setMode('ok'));

  it('DESIGN 3.1, spec 6: the holder revokes its Auth Token by (iss, jti) → 200; AuthTokenRevoked on pstokens-<s256>; the token is no longer honoured as upstream_token', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const revoked = await issuedToken(agent, s256);
    const kept = await issuedToken(agent, s256);

    const reply = await revokeAsAgent(agent, { iss: testBaseUrl, jti: revoked.jti });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect((await revokedEvents(s256)).map((event) => event.data)).toEqual([
      expect.objectContaining({ iss: testBaseUrl, jti: revoked.jti, revoked_by: 'holder', actor: { id: agent.id, role: 'agent' }, authorization: { decision: 'permit', policy: 'ps:token-revocation-request' }, mission_s256: s256 }),
    ]);
    expect((await verifyHashChain(store, tokensStreamName(s256))).ok).toBe(true);

    const refused = await callOnwards(s256, revoked.token);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_request' });
    // The control: an unrevoked token of the same mission still works as upstream_token.
    expect((await callOnwards(s256, kept.token)).status).toBe(200);
    // A repeat changes nothing and answers the same.
    const again = await revokeAsAgent(agent, { iss: testBaseUrl, jti: revoked.jti });
    expect(again.status).toBe(200);
    expect(await revokedEvents(s256)).toHaveLength(1);
  });

  it('spec 2.5, 4.4 rules 3–4, ADR 0016: revoked by its audience the token counts as confirmed in token_residual; revoked by its holder it stays unconfirmed until its resource confirms', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const byAudience = await issuedToken(agent, s256);
    const byHolder = await issuedToken(agent, s256);
    expect((await revokeAsResource({ iss: testBaseUrl, jti: byAudience.jti })).status).toBe(200);
    expect((await revokeAsAgent(agent, { iss: testBaseUrl, jti: byHolder.jti })).status).toBe(200);
    expect((await revokedEvents(s256)).map((event) => [event.data['jti'], event.data['revoked_by'], event.data['actor']])).toEqual([
      [byAudience.jti, 'audience', { id: DEMO_RESOURCE, role: 'resource' }],
      [byHolder.jti, 'holder', { id: agent.id, role: 'agent' }],
    ]);

    // The resource cannot be reached after termination: only the audience's own revocation is a confirmation.
    await resource.setMode('fail');
    const terminated = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    expect(terminated.status).toBe(200);
    expect(terminated.json['token_residual']).toMatchObject({ tracked: 2, revocation_confirmed: 1, complete: false });
    expect(resource.callsFor(byAudience.jti)).toBe(0);
    expect(resource.callsFor(byHolder.jti)).toBeGreaterThanOrEqual(1);
  });

  it('spec 5.9, ADR 0016: no oracle — an unknown jti, a foreign iss, another holder\'s token and a principal get the same 200 as a real revocation; nothing is recorded; probes are security-audited', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const target = await issuedToken(agent, s256);
    const stranger = await newAgent('aauth:stranger@agents.example');
    const auditBefore = (await events(store, SECURITY_AUDIT_STREAM)).length;

    const answers = [
      await revokeAsAgent(stranger, { iss: testBaseUrl, jti: target.jti }),
      await revokeAsAgent(stranger, { iss: testBaseUrl, jti: `${s256}.AAAAAAAAAAAAAAAAAAAAAA` }),
      await revokeAsAgent(stranger, { iss: testBaseUrl, jti: 'not-a-jti-of-this-ps' }),
      await revokeAsAgent(stranger, { iss: 'https://other-ps.example', jti: target.jti }),
      await ps.asPrincipal(alice, { path: '/revoke', body: { iss: testBaseUrl, jti: target.jti } }),
    ];
    const real = await revokeAsAgent(agent, { iss: testBaseUrl, jti: (await issuedToken(agent, s256)).jti });
    for (const answer of answers) {
      expect(answer.status).toBe(real.status);
      expect(answer.text).toBe(real.text);
      expect(headersExceptDateAndRequestId(answer)).toEqual(headersExceptDateAndRequestId(real));
    }
    expect((await revokedEvents(s256)).map((event) => event.data['jti'])).not.toContain(target.jti);
    // The target is still honoured: nobody but its holder or audience revoked it.
    expect((await callOnwards(s256, target.token)).status).toBe(200);
    await service.app.get(SecurityAudit).flush();
    const probes = (await events(store, SECURITY_AUDIT_STREAM)).slice(auditBefore).filter((event) => event.data['kind'] === 'token_revocation_probe');
    // Identical probes of one caller within a minute are written once (SecurityAudit's repeat suppression).
    expect(probes.map((event) => [event.data['reason'], event.data['caller_role']]).sort()).toEqual([
      ['not_authorized', 'agent'],
      ['not_authorized', 'person'],
      ['unknown', 'agent'],
    ]);
  });

  it('a malformed request is 400 invalid_request (problem+json)', async () => {
    const agent = await newAgent();
    for (const body of [[], { iss: testBaseUrl }, { iss: 7, jti: 'x' }, { iss: testBaseUrl, jti: '' }]) {
      const reply = await revokeAsAgent(agent, body);
      expect(reply.status).toBe(400);
      expect(reply.json).toMatchObject({ error: 'invalid_request' });
    }
  });
});
