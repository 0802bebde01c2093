/** The issuer half of the demo: root mission, two sub-agents and a grandchild, a denied child, suspend/resume, revoke and cascade. */
import { IssuerClient, ProtocolError, type Mission } from '@mission/mission-client';
import { issuerClientKey } from '../stack/demo-keys.js';
import { DELEGATING_CHILD, inMinutes, LEAF, OVER_BROAD, REDIRECT_URI, ROOT_AUTHORITY } from './authority.js';
import type { Narrator } from './narrator.js';

const client = (issuerUrl: string, clientId: string): Promise<IssuerClient> => IssuerClient.discover({ issuer: issuerUrl, clientId, clientKey: issuerClientKey(clientId) });

export async function issuerStory(issuerUrl: string, say: Narrator): Promise<void> {
  say.section('The agent gets a root mission at the issuer (PAR → authorize by policy → DPoP-bound tokens)');
  const agent = await client(issuerUrl, 'demo-agent');
  const root = await agent.obtainRootMission({
    intent: { goal: 'Reconcile the March invoices', resources: ['https://erp.example.com'], expiresAt: inMinutes(60) },
    authorizationDetails: ROOT_AUTHORITY, redirectUri: REDIRECT_URI,
  });
  say.say(`root mission ${root.id} for demo-agent, DPoP key ${root.key.jkt}`);
  say.expect((await root.status()).active, 'the signed Mission Status says active');

  say.section('It delegates to two sub-agents; one of them delegates further');
  const subagentClient = await client(issuerUrl, 'demo-subagent');
  const workerClient = await client(issuerUrl, 'demo-worker');
  const grantA = await root.createChild({ actor: 'demo-subagent', authority: DELEGATING_CHILD, expiresAt: inMinutes(45), goal: 'Read the March invoices' });
  say.say(`demo-agent received only a grant reference for demo-subagent: ${grantA.requestUri.slice(0, 40)}… (expires in ${grantA.expiresIn} s)`);
  const childA = await subagentClient.redeemChild(grantA);
  const childB = await workerClient.redeemChild(await root.createChild({ actor: 'demo-worker', authority: LEAF, expiresAt: inMinutes(45), goal: 'Summarise the invoices' }));
  const grandchild = await workerClient.redeemChild(await childA.createChild({ actor: 'demo-worker', authority: LEAF, expiresAt: inMinutes(30), goal: 'Fetch one invoice' }));
  say.say(`child ${childA.id} (demo-subagent, depth ${String(childA.parent?.['depth'])}), child ${childB.id} (demo-worker), grandchild ${grandchild.id} (demo-worker under demo-subagent, depth ${String(grandchild.parent?.['depth'])})`);
  say.expect(childA.key.jkt !== root.key.jkt && grandchild.key.jkt !== childA.key.jkt, 'each child holds tokens bound to its own key; the parent never saw them');

  say.section('An over-broad child is denied');
  const denied = await root.createChild({ actor: 'demo-subagent', authority: OVER_BROAD, expiresAt: inMinutes(30) }).catch((error: unknown) => error);
  say.expect(denied instanceof ProtocolError && denied.denialReason === 'not_strict_subset', `asking for invoices.delete is refused: ${denied instanceof ProtocolError ? denied.message + ' [' + denied.denialReason + ']' : String(denied)}`);

  say.section('The mission is suspended and resumed (by the operator client demo-admin)');
  const admin = await client(issuerUrl, 'demo-admin');
  await admin.lifecycle(root.id, 'suspend', { reason: 'the person wants to check something' });
  const heldStates = await Promise.all([childA, childB, grandchild].map(async (mission) => (await admin.status(mission.id)).state));
  say.expect(heldStates.every((state) => state === 'suspended'), `every descendant reports suspended: ${heldStates.join(', ')}`);
  const refused = await grandchild.refresh().then(() => 'refreshed', (error: unknown) => (error as Error).message);
  say.expect(refused !== 'refreshed', `the grandchild cannot derive new tokens: ${refused}`);
  await admin.lifecycle(root.id, 'resume', { reason: 'all good' });
  say.expect((await grandchild.status()).active, 'after resume the grandchild is active again');
  await grandchild.refresh();
  say.expect(true, 'and can refresh its tokens');

  say.section('The root is revoked; the cascade reaches every descendant');
  await admin.lifecycle(root.id, 'revoke', { reason: 'work done' });
  const states = await waitForStates(admin, [childA, childB, grandchild], 'cascaded');
  say.expect(states.every((state) => state === 'cascaded'), `descendants: ${states.join(', ')}`);
  const introspected = await agent.introspect(grandchild.accessToken);
  say.expect(introspected.active === false, 'introspection of the grandchild access token: active=false');
  const tree = await admin.tree(root.id);
  for (const node of tree.nodes) say.say(`${'  '.repeat(Number(node['depth'] ?? 0))}${String(node['mission_id'])} ${String(node['state'])} (${String(node['client_id'])})`);
}

async function waitForStates(admin: IssuerClient, missions: Mission[], wanted: string): Promise<string[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const states = await Promise.all(missions.map(async (mission) => (await admin.status(mission.id)).state));
    if (states.every((state) => state === wanted) || Date.now() > deadline) return states;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
