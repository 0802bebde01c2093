/** The Person Server half of the demo: approval, auth tokens, terminate, revocation at the resource, residual. */
import { generateSigningKey, PersonServerClient } from '@mission/mission-client';
import { demoKey } from '../stack/demo-keys.js';
import type { DemoResource } from '../stack/demo-resource.js';
import { agentToken, ASSISTANT, resourceToken } from '../stack/parties.js';
import type { Narrator } from './narrator.js';

/** Approval and Auth Tokens; answers the closing act (terminate, revocation, residual) to run at the end of the story. */
export async function personServerStory(psUrl: string, resource: DemoResource, say: Narrator): Promise<() => Promise<void>> {
  say.section('A person approves an agent\'s mission at the Person Server');
  const agentKey = await generateSigningKey('EdDSA');
  const agent = await PersonServerClient.discover({ url: psUrl, identity: { kind: 'agent', key: agentKey, agentToken: () => agentToken(ASSISTANT, agentKey) } });
  const alice = await PersonServerClient.discover({ url: psUrl, identity: { kind: 'principal', key: demoKey('ps-principal-alice') } });
  const proposal = await agent.proposeMission({ description: 'Reconcile the March invoices', tools: ['files.read'] });
  say.say(`${ASSISTANT} proposed; pending at ${proposal.pendingUrl}`);
  const { s256 } = await alice.approve(proposal.pendingId);
  const approved = await proposal.wait();
  say.expect(approved.s256 === s256, `alice approved; the agent holds mission ${s256}`);
  say.expect((await agent.status(s256)).active, 'status: active (fresh)');

  say.section('The agent gets Auth Tokens for itself and a sub-agent at the demo resource');
  const helperKey = await generateSigningKey('ES256');
  const helper = 'aauth:helper@agents.example';
  const audience = String(agent.metadata['issuer']);
  const own = await agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) });
  const forHelper = await agent.authToken({
    resourceToken: await resourceToken({ agent: helper, agentJkt: helperKey.jkt, missionS256: s256, audience }),
    subagentToken: await agentToken(helper, helperKey, { parentAgent: ASSISTANT }),
  });
  say.say(`two Auth Tokens (expires_in ${own.expires_in} s and ${forHelper.expires_in} s)`);
  for await (const node of alice.delegationTree(s256, { pageSize: 1 })) say.say(`tree: ${String(node['agent'])} (${String(node['relationship'])})`);

  return async () => {
  say.section('The person terminates the PS mission; its Auth Tokens are revoked at the resource');
  const watching = agent.watch(s256, { intervalMs: 100 });
  const answer = await alice.terminate(s256, { reason: 'revoked' });
  const residual = answer['token_residual'] as Record<string, unknown>;
  say.say(`terminated at ${String(answer['terminated_at'])}; token_residual ${JSON.stringify(residual)}`);
  say.expect(residual['tracked'] === 2 && residual['complete'] === false, 'two tracked tokens; complete=false (untracked access modes may exist, spec 4.4 rule 6)');
  say.expect((await watching).status === 'terminated', 'the agent\'s watch() loop stops on terminated');
  const deadline = Date.now() + 20_000;
  while (resource.revocations.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  say.expect(resource.revocations.length >= 2 && resource.revocations.every((call) => call.signed), `the resource received ${resource.revocations.length} signed revocations: ${resource.revocations.map((call) => call.jti).join(', ')}`);
  const refused = await agent.authToken({ resourceToken: await resourceToken({ agent: ASSISTANT, agentJkt: agentKey.jkt, missionS256: s256, audience }) }).then(() => 'issued', (error: unknown) => (error as Error).message);
  say.expect(refused.startsWith('mission_terminated'), `a new Auth Token is refused: ${refused}`);
  };
}
