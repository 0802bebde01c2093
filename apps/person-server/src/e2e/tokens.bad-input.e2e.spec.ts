import { agentToken, freshKey } from '../testing/signed-request.spec-helper.js';
import { alice, headersExceptDateAndRequestId, newAgent, type Agent, type Reply } from '../testing/ps-http.spec-helper.js';
import { resourceToken } from '../testing/resource-tokens.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { authToken, jktOf, ps, startTokensServer, SUB_AGENT, tokenRequest } from '../testing/tokens-e2e.spec-helper.js';

/** POST /token with malformed or unauthorized input: a clear 4xx problem, never a 5xx. */
startTokensServer();

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
