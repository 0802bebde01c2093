import { createLocalJWKSet, decodeJwt, jwtVerify, type JWK } from 'jose';
import { verifyHashChain } from '@mission/es-kit';
import { tokensStreamName } from '@mission/ps-domain';
import { agentToken, freshKey } from '../testing/signed-request.spec-helper.js';
import { alice, events, newAgent } from '../testing/ps-http.spec-helper.js';
import { DEMO_RESOURCE, resourceToken } from '../testing/resource-tokens.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { absentReference, authToken, FILES_SERVICE, jktOf, ps, resource, startTokensServer, store, SUB_AGENT, tokenRequest } from '../testing/tokens-e2e.spec-helper.js';

/** DESIGN 3.1, 3.3 over HTTP: POST /token issues and tracks auth tokens; sub-agent and call-chain tokens shape the delegation tree. */
startTokensServer();

async function psJwks(): Promise<ReturnType<typeof createLocalJWKSet>> {
  return createLocalJWKSet((await ps.get('/jwks')).json as { keys: JWK[] });
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
