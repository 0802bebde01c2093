import { missionStreamName } from '@mission/ps-domain';
import { events, newAgent } from '../testing/ps-http.spec-helper.js';
import { authToken, ps, startTokensServer, store, terminate } from '../testing/tokens-e2e.spec-helper.js';

/** Spec 3 rule 3 over HTTP: no token under a terminated or expired mission. */
startTokensServer();

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
