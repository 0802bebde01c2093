import { generateSigningKey, PersonServerClient, randomBase64url, type SigningKey } from '@mission/mission-client';
import { demoKey } from './stack/demo-keys.js';
import { agentToken, ASSISTANT, DEMO_RESOURCE, resourceToken } from './stack/parties.js';
import { Stack } from './stack/stack.js';
import { eventually } from './stack/eventually.js';

const FILES_SERVICE = 'aauth:files-service@agents.example';
const claimsOf = (jwt: string): { iss: string; jti: string } => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string; jti: string };

/** The SDK's Person Server calls against the real PS (a child process on a temporary data directory). */
describe('SDK ↔ Person Server (e2e)', () => {
  let stack: Stack;
  let agentKey: SigningKey;
  const asAgent = async (key: SigningKey = agentKey, agent = ASSISTANT): Promise<PersonServerClient> =>
    PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'agent', key, agentToken: () => agentToken(agent, key) } });
  const asPrincipal = (name: string): Promise<PersonServerClient> => PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'principal', key: demoKey(`ps-principal-${name}`) } });
  const approved = async (): Promise<string> => {
    const agent = await asAgent();
    const proposal = await agent.proposeMission({ description: 'Reconcile invoices', tools: ['invoices.read'] });
    await (await asPrincipal('alice')).approve(proposal.pendingId);
    return (await proposal.wait()).s256;
  };

  beforeAll(async () => {
    stack = await Stack.start();
    agentKey = await generateSigningKey('EdDSA');
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('proposeMission follows the 202; the owning person approves (Ed25519 hwk, twice within a second thanks to the nonce); wait() gets the blob', async () => {
    const agent = await asAgent();
    const proposal = await agent.proposeMission({ description: 'Reconcile invoices', tools: ['invoices.read'] });
    expect(await proposal.poll()).toBeUndefined();
    expect(await proposal.poll()).toBeUndefined();
    const alice = await asPrincipal('alice');
    expect((await alice.approve(proposal.pendingId)).s256).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const mission = await proposal.wait();
    expect(mission.blob).toMatchObject({ agent: ASSISTANT, description: 'Reconcile invoices' });
  });

  it('a declined proposal ends wait() with denied', async () => {
    const proposal = await (await asAgent()).proposeMission({ description: 'Delete everything' });
    await (await asPrincipal('alice')).decline(proposal.pendingId);
    await expect(proposal.wait()).rejects.toMatchObject({ code: 'denied', status: 403 });
  });

  it('status, watch and terminate: request_id generated, a retry with the same id is idempotent, watch stops on terminated (spec 4.1, 4.2 rule 2)', async () => {
    const s256 = await approved();
    const agent = await asAgent();
    const status = await agent.status(s256);
    expect(status).toMatchObject({ active: true, status: 'active' });
    expect(status.freshUntil!.getTime()).toBeGreaterThan(Date.now());
    const seen: string[] = [];
    const watching = agent.watch(s256, { intervalMs: 50, onStatus: (answer) => seen.push(answer.status) });
    const requestId = randomBase64url(16);
    const ops = await asPrincipal('ops');
    const first = await ops.terminate(s256, { reason: 'administrative', purpose: 'demo', requestId });
    const again = await ops.terminate(s256, { reason: 'administrative', purpose: 'demo', requestId });
    expect(again).toEqual(first);
    expect(first).toMatchObject({ mission_status: 'terminated', termination_reason: 'administrative', token_residual: expect.any(Object) });
    expect((await watching).status).toBe('terminated');
    expect(seen.at(-1)).toBe('terminated');
    await expect(ops.terminate(s256, { reason: 'administrative', purpose: 'other', requestId })).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it('auth tokens (incl. subagent_token), the delegation tree paged by the async iterator, revocation at the resource after terminate', async () => {
    const s256 = await approved();
    const agent = await asAgent();
    const subKey = await generateSigningKey('ES256');
    const sub = 'aauth:helper@agents.example';
    const audience = stack.personServerUrl;
    await agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) });
    await agent.authToken({
      resourceToken: await resourceToken({ agent: sub, agentJkt: subKey.jkt, missionS256: s256, audience }),
      subagentToken: await agentToken(sub, subKey, { parentAgent: ASSISTANT }),
    });
    const alice = await asPrincipal('alice');
    const nodes = [];
    for await (const node of alice.delegationTree(s256, { pageSize: 1 })) nodes.push(node);
    expect(nodes.map((node) => node['relationship'])).toEqual(['root', 'sub_agent']);
    const terminated = await alice.terminate(s256, { reason: 'revoked' });
    expect((terminated['token_residual'] as Record<string, unknown>)['tracked']).toBe(2);
    await expect(agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) })).rejects.toMatchObject({ code: 'mission_terminated' });
    await eventually(() => stack.resource.revocations.filter((call) => call.signed).length >= 2);
  });

  it('status fails closed: unreachable PS, an error answer and a stale answer all give active=false', async () => {
    const s256 = await approved();
    const down = await PersonServerClient.discover({
      url: stack.personServerUrl, identity: { kind: 'principal', key: demoKey('ps-principal-alice') },
      fetch: async (input, init) => (String(input).includes('/.well-known/') ? fetch(input, init) : Promise.reject(new TypeError('fetch failed'))),
    });
    expect(await down.status(s256)).toMatchObject({ active: false, status: 'unknown', failure: { code: 'unreachable' } });
    const later = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'principal', key: demoKey('ps-principal-alice') }, now: () => new Date(Date.now() + 3_600_000) });
    expect(await later.status(s256)).toMatchObject({ active: false, failure: { code: expect.stringMatching(/stale|error_response/) } });
    const stranger = await asPrincipal('bob');
    const refused = await stranger.status(s256);
    expect(refused).toMatchObject({ active: false, failure: { code: 'error_response' } });
    expect(refused.failure!.message).toContain('mission_not_found');
  });

  it('pendingProposals (ADR 0034): the owning person lists the proposal with its content, paged; another person and the agent get none; a decided one leaves the list', async () => {
    const agent = await asAgent();
    const proposal = await agent.proposeMission({ description: 'Pending listing', tools: ['invoices.read'] });
    const list = async (client: PersonServerClient): Promise<string[]> => {
      const ids: string[] = [];
      for await (const entry of client.pendingProposals({ pageSize: 1 })) ids.push(entry.pending_id);
      return ids;
    };
    const alice = await asPrincipal('alice');
    const mine = [];
    for await (const entry of alice.pendingProposals({ pageSize: 1 })) mine.push(entry);
    expect(mine).toContainEqual({ pending_id: proposal.pendingId, agent: ASSISTANT, submitted_at: expect.any(String), description: 'Pending listing', tools: ['invoices.read'] });
    expect(await list(await asPrincipal('bob'))).not.toContain(proposal.pendingId);
    expect(await list(agent)).toEqual([]);
    await alice.decline(proposal.pendingId);
    expect(await list(alice)).not.toContain(proposal.pendingId);
  });

  it('revokeToken at the advertised revocation_endpoint (ADR 0016): the holder (by token) and the audience (resource key, by iss/jti) revoke; a person\'s request revokes nothing; revoked tokens are refused as upstream_token', async () => {
    const s256 = await approved();
    const agent = await asAgent();
    const audience = stack.personServerUrl;
    const issue = async (): Promise<string> => (await agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) })).auth_token;
    const [byHolder, byAudience, kept] = [await issue(), await issue(), await issue()];
    await agent.revokeToken({ token: byHolder });
    const resource = await PersonServerClient.discover({ url: stack.personServerUrl, identity: { kind: 'resource', key: demoKey('ps-resource-files.example'), resource: DEMO_RESOURCE } });
    await resource.revokeToken(claimsOf(byAudience));
    await (await asPrincipal('alice')).revokeToken(claimsOf(kept));
    const filesKey = await generateSigningKey('ES256');
    const files = await asAgent(filesKey, FILES_SERVICE);
    const onwards = async (upstreamToken: string) =>
      files.authToken({ resourceToken: await resourceToken({ agent: FILES_SERVICE, agentJkt: filesKey.jkt, missionS256: s256, audience }), upstreamToken });
    await expect(onwards(byHolder)).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    await expect(onwards(byAudience)).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    // upstream_token (DESIGN 3.3): the unrevoked token still carries the call chain onwards.
    const onward = await onwards(kept);
    expect(claimsOf(onward.auth_token).iss).toBe(stack.personServerUrl);
    const nodes = [];
    for await (const node of (await asPrincipal('alice')).delegationTree(s256)) nodes.push(node);
    expect(nodes).toContainEqual(expect.objectContaining({ agent: FILES_SERVICE, relationship: 'call_chain', parent_agent: ASSISTANT }));
  });
});
