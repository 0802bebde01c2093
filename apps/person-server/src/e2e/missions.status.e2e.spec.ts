import { alice, newAgent, requestId } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, asPrincipal, events, startMissionsServer } from '../testing/missions.spec-helper.js';

/** Spec 4.1 over HTTP: the `status` operation of an active, a terminated and an expired mission. */
startMissionsServer();

describe('spec 4.1 status', () => {
  it('spec 4.1, 2.3: active with approved_at, observed_at, fresh_until (30 s); never blob members; MissionStatusRead is logged', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(Object.keys(reply.json).sort()).toEqual(['approved_at', 'fresh_until', 'mission_s256', 'mission_status', 'observed_at']);
    expect(reply.json).toMatchObject({ mission_s256: s256, mission_status: 'active' });
    expect(Date.parse(String(reply.json['fresh_until'])) - Date.parse(String(reply.json['observed_at']))).toBe(30_000);
    expect((await events(`psmission-${s256}`)).map((event) => event.type)).toEqual(['MissionApproved', 'MissionStatusRead']);
  });

  it('spec 4.1, 3: after terminate the status is terminated with terminated_at and termination_reason', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const terminated = await asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: requestId() } });
    expect(terminated.status).toBe(200);
    const status = await asPrincipal(alice, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'completed', terminated_at: terminated.json['terminated_at'] });
  });

  it('spec 3, 2.4 expired: a mission approved with expires_at a few seconds ahead reads terminated/expired, attributed to ps-scheduler', async () => {
    const agent = await newAgent();
    // Far enough ahead that proposal, approval and poll finish before it on a slow, loaded machine (an approval whose
    // expires_at has passed is refused); then wait until it has passed, however long the approval took.
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const { s256, pending } = await approvedMission(agent, { expiresAt });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 100));
    const status = await asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'expired', terminated_at: expiresAt, expires_at: expiresAt });
    const terminated = (await events(`psmission-${s256}`)).filter((event) => event.type === 'MissionTerminated');
    expect(terminated).toHaveLength(1);
    expect(terminated[0]!.data).toMatchObject({ reason: 'expired', actor: { id: 'ps-scheduler', role: 'system' } });
    // Spec 2.8: the expiry carries its token-impact summary (no tokens were issued under this mission).
    expect(terminated[0]!.data['token_impact']).toEqual({ tracked: 0, to_revoke: 0, tokens_sequence: 0 });
    // Spec 3 rule 3: polling the proposal of the expired mission is refused like every base request under it.
    const polled = await asAgent(agent, { path: pending });
    expect([polled.status, polled.json['error'], polled.json['mission_status'], polled.json['termination_reason']]).toEqual([403, 'mission_terminated', 'terminated', 'expired']);
  });
});
