import { IssuerClient, ProtocolError, type Mission } from '@mission/mission-client';
import { issuerClientKey } from './stack/demo-keys.js';
import { Stack } from './stack/stack.js';
import { DELEGATING_CHILD, inMinutes, LEAF, OVER_BROAD, REDIRECT_URI, ROOT_AUTHORITY } from './story/authority.js';

/** The SDK's issuer calls against the real issuer (a child process on a temporary data directory). */
describe('SDK ↔ issuer (e2e)', () => {
  let stack: Stack;
  const client = (clientId: string): Promise<IssuerClient> => IssuerClient.discover({ issuer: stack.issuerUrl, clientId, clientKey: issuerClientKey(clientId) });
  const root = async (): Promise<Mission> =>
    (await client('demo-agent')).obtainRootMission({ intent: { goal: 'Reconcile March', resources: ['https://erp.example.com'], expiresAt: inMinutes(60) }, authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI });

  beforeAll(async () => {
    stack = await Stack.start();
  }, 120_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('discovers the metadata and refuses an issuer that names itself differently (RFC 8414 §3.3)', async () => {
    const issuer = await client('demo-agent');
    expect(issuer.metadata.issuer).toBe(stack.issuerUrl);
    await expect(IssuerClient.discover({ issuer: stack.issuerUrl.replace('127.0.0.1', 'localhost'), clientId: 'demo-agent', clientKey: issuerClientKey('demo-agent') })).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('root mission: PAR → authorize (policy) → DPoP-bound tokens; refresh rotates safely under concurrent use', async () => {
    const mission = await root();
    expect(mission.id).toMatch(/^msn_/);
    const first = mission.tokens.refresh_token;
    const results = await Promise.all([mission.refresh(), mission.refresh(), mission.createChild({ actor: 'demo-subagent', authority: LEAF, expiresAt: inMinutes(30) }), mission.refresh()]);
    expect(results).toHaveLength(4);
    expect(mission.tokens.refresh_token).not.toBe(first);
    expect((await mission.status()).active).toBe(true);
  });

  it('createChild answers a grant reference only; the child actor redeems it with its own key (spec 4.1 rule 3, 5 rule 3)', async () => {
    const parent = await root();
    const grant = await parent.createChild({ actor: 'demo-subagent', authority: DELEGATING_CHILD, expiresAt: inMinutes(30) });
    expect(Object.keys(grant).sort()).toEqual(['expiresIn', 'requestUri']);
    const child = await (await client('demo-subagent')).redeemChild(grant);
    expect(child.parent).toMatchObject({ id: parent.id, depth: 1 });
    expect(child.key.jkt).not.toBe(parent.key.jkt);
    const grandchild = await (await client('demo-worker')).redeemChild(await child.createChild({ actor: 'demo-worker', authority: LEAF, expiresAt: inMinutes(20) }));
    expect(grandchild.parent).toMatchObject({ id: child.id, depth: 2 });
    // A reused grant reference is invalid_grant.
    await expect((await client('demo-subagent')).redeemChild(grant)).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('an over-broad child is refused with not_strict_subset (spec 2.5 rule 7)', async () => {
    const parent = await root();
    const refusal = await parent.createChild({ actor: 'demo-subagent', authority: OVER_BROAD, expiresAt: inMinutes(30) }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ProtocolError);
    expect((refusal as ProtocolError).denialReason).toBe('not_strict_subset');
  });

  it('lifecycle, status, tree, evidence and introspection: suspend holds the child, revoke cascades (spec 3.2)', async () => {
    const parent = await root();
    const child = await (await client('demo-subagent')).redeemChild(await parent.createChild({ actor: 'demo-subagent', authority: LEAF, expiresAt: inMinutes(30) }));
    const agent = await client('demo-agent');
    const admin = await client('demo-admin');
    expect(await agent.lifecycle(parent.id, 'suspend', { reason: 'pause' })).toMatchObject({ state: 'suspended' });
    expect(await admin.status(child.id)).toMatchObject({ active: false, state: 'suspended' });
    await expect(child.refresh()).rejects.toMatchObject({ code: 'invalid_grant' });
    await agent.lifecycle(parent.id, 'resume', { reason: 'go on' });
    expect(await child.status()).toMatchObject({ active: true, state: 'active' });
    const tree = await agent.tree(parent.id);
    expect(tree.nodes.map((node) => node['mission_id'])).toEqual(expect.arrayContaining([parent.id, child.id]));
    const evidence = [];
    for await (const record of agent.evidence(parent.id, { pageSize: 1 })) evidence.push(record);
    expect(evidence.map((record) => record['decision'])).toContain('created');
    expect(await agent.introspect(child.accessToken)).toMatchObject({ active: true });
    await admin.lifecycle(parent.id, 'revoke', { reason: 'done' });
    expect(await admin.status(child.id)).toMatchObject({ active: false, state: 'cascaded' });
    expect((await agent.introspect(child.accessToken)).active).toBe(false);
  });
});
