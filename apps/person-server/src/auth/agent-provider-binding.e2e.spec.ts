import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { missionStreamName, tokensStreamName } from '@mission/ps-domain';
import { agentToken, freshKey } from '../testing/signed-request.spec-helper.js';
import { alice, ASSISTANT, events, headersExceptDateAndRequestId, newAgent, PsClient, requestId, type Agent, type Reply } from '../testing/ps-http.spec-helper.js';
import { resourceToken } from '../testing/resource-tokens.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';
import { PROVIDER_B_DOMAIN, writeTwoProviderConfig, type TwoProviderFixture } from '../testing/two-providers.js';
import { tokenRequest } from '../testing/tokens.spec-helper.js';

/**
 * Issue 12 defect 1 (spec 5.2, 5.4; ADR 0015): an agent identifier is only meaningful with the provider that
 * vouches for it. Two agent providers: A (`https://agents.example`, the demo provider, owner of ASSISTANT) and
 * B (`https://agents-b.example`, agent domain `agents-b.example`). B mints Agent Tokens at will — including ones
 * whose `sub` is A's agent.
 */
describe('two agent providers: provider B cannot act as provider A\'s agent (issue 12 defect 1, spec 5.2, 5.4)', () => {
  let dataDir: string;
  let service: RunningService;
  let store: EventStore;
  let fixture: TwoProviderFixture;
  const ps = new PsClient(() => service);
  /** A's agent, with its real key, tokens from provider A. */
  let owner: Agent;
  /** Provider B's token claiming A's agent identifier, with a key B chose. */
  let impostor: Agent;
  /** A genuine agent of provider B. */
  let strangerOfB: Agent;
  let mission: { s256: string; pendingPath: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ps-two-providers-'));
    fixture = await writeTwoProviderConfig(dataDir);
    ({ service } = await startPersonServer(dataDir, { CONFIG_FILE: fixture.configFile }));
    store = service.app.get<EventStore>(EVENT_STORE);
    owner = await newAgent(ASSISTANT);
    impostor = { id: ASSISTANT, key: await freshKey(), provider: fixture.providerB };
    strangerOfB = { id: `aauth:assistant@${PROVIDER_B_DOMAIN}`, key: await freshKey(), provider: fixture.providerB };
    mission = await ps.approvedMission(owner);
  });

  afterAll(async () => {
    await service.stop('test done');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const absent = (label: string): string => createHash('sha256').update(`absent ${label} ${Math.random()}`).digest('base64url');
  const operations = (s256: string): Record<string, Record<string, unknown>> => ({
    status: { operation: 'status', mission_s256: s256 },
    terminate: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() },
    delegation_tree: { operation: 'delegation_tree', mission_s256: s256 },
  });

  /** Spec 5.9: same status, body bytes and header set. */
  const sameAnswer = (a: Reply, b: Reply): void => {
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text);
    expect(headersExceptDateAndRequestId(a)).toEqual(headersExceptDateAndRequestId(b));
  };

  it.each(['status', 'terminate', 'delegation_tree'])(
    'spec 5.2, 5.4, 5.9: %s by provider B\'s token naming A\'s agent gets no authority — the same refusal as for an absent mission, and nothing is logged',
    async (operation) => {
      const logBefore = (await events(store, missionStreamName(mission.s256))).length;
      const onMission = await ps.asAgent(impostor, { body: operations(mission.s256)[operation] });
      const onAbsent = await ps.asAgent(impostor, { body: operations(absent(operation))[operation] });
      expect(onMission.status).toBe(401);
      expect(String(onMission.headers['signature-error'])).toContain('agent_outside_provider');
      sameAnswer(onMission, onAbsent);
      expect(await events(store, missionStreamName(mission.s256))).toHaveLength(logBefore);
      // The mission is untouched: its owner still reads it active.
      const status = await ps.asAgent(owner, { body: operations(mission.s256)['status'] });
      expect(status.json).toMatchObject({ mission_status: 'active' });
    },
  );

  it('spec 5.4, 5.9: a genuine agent of provider B is a stranger to A\'s mission: 404 mission_not_found, identical to an absent mission', async () => {
    for (const operation of ['status', 'terminate', 'delegation_tree']) {
      const onMission = await ps.asAgent(strangerOfB, { body: operations(mission.s256)[operation] });
      const onAbsent = await ps.asAgent(strangerOfB, { body: operations(absent(operation))[operation] });
      expect(onMission.status).toBe(404);
      sameAnswer(onMission, onAbsent);
    }
  });

  it('spec 5.2: provider B cannot get a token whose sub is outside its domain accepted anywhere — proposal, poll, POST /token (401)', async () => {
    const proposal = await ps.asAgent(impostor, { body: { description: 'Act as A' } });
    expect(proposal.status).toBe(401);
    const poll = await ps.asAgent(impostor, { path: mission.pendingPath });
    expect(poll.status).toBe(401);
    const rt = await resourceToken({ agent: ASSISTANT, agentJkt: await calculateJwkThumbprint(impostor.key.publicJwk, 'sha256'), missionS256: mission.s256, audience: testBaseUrl });
    const token = await tokenRequest(ps, impostor, { resource_token: rt });
    expect(token.status).toBe(401);
    expect(String(token.headers['signature-error'])).toContain('agent_outside_provider');
    expect(await events(store, tokensStreamName(mission.s256))).toHaveLength(0);
  });

  it('spec 5.2, 5.4: a provider B token whose parent_agent is A\'s agent is refused (a sub-agent cannot be claimed across providers)', async () => {
    const subOfB: Agent = { id: `aauth:helper@${PROVIDER_B_DOMAIN}`, key: await freshKey(), provider: fixture.providerB };
    const reply = await ps.asAgent(subOfB, { body: operations(mission.s256)['status'], claims: { parent_agent: ASSISTANT } });
    expect(reply.status).toBe(401);
    expect(String(reply.headers['signature-error'])).toContain('agent_outside_provider');
  });

  it('spec 4.3 rule 4, DESIGN 3.3: a subagent_token of provider B naming A\'s agent as parent is refused (400) and adds no sub_agent node', async () => {
    const subKey = await freshKey();
    const subAgent = `aauth:helper@${PROVIDER_B_DOMAIN}`;
    const now = Math.floor(Date.now() / 1000);
    // Minted by B with B's key: the sub-agent is B's, the parent it names is A's.
    const subToken = await agentToken({ agentKey: subKey, providerJwk: fixture.providerB.jwk, claims: { iss: fixture.providerB.issuer, sub: subAgent, parent_agent: ASSISTANT, iat: now - 5, exp: now + 600 } });
    const rt = await resourceToken({ agent: subAgent, agentJkt: await calculateJwkThumbprint(subKey.publicJwk, 'sha256'), missionS256: mission.s256, audience: testBaseUrl });
    const reply = await tokenRequest(ps, owner, { resource_token: rt, subagent_token: subToken });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid_request' });
    const tree = await ps.asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: mission.s256 } });
    expect(tree.json['nodes']).toEqual([{ agent: ASSISTANT, relationship: 'root', tokens: [] }]);
  });
});
