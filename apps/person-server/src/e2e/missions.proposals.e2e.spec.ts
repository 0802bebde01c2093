import { createHash, randomBytes } from 'node:crypto';
import { aggregateStream, handleCommand } from '@mission/es-kit';
import { missionBlobBytes, missionS256, proposalBlobFields, proposalDecider, proposalStreamName } from '@mission/ps-domain';
import { alice, ASSISTANT, bob, newAgent, ops, requestId } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, asPrincipal, events, RESEARCHER, startMissionsServer, store } from '../testing/missions.spec-helper.js';
import { testBaseUrl } from '../testing/run-person-server.js';

/** DESIGN 3.1 over HTTP: an agent proposes a mission, its person approves or declines it, the agent polls. */
startMissionsServer();

const pendingPath = (location: string): string => location.slice(testBaseUrl.length);

describe('DESIGN 3.1 proposals and approvals (POST /mission, GET /mission/pending/{id}, POST /mission/approvals)', () => {
  it('DESIGN 3.1: propose → 202 pending with Location and Retry-After → person approves → poll returns {s256, mission}; s256 = SHA-256 of the decoded blob bytes', async () => {
    const agent = await newAgent();
    const proposed = await asAgent(agent, { body: { description: 'Reconcile November invoices', tools: ['invoices.read'], resources: ['https://erp.example.com/invoices'] } });
    expect(proposed.status).toBe(202);
    expect(proposed.json).toEqual({ status: 'pending' });
    expect(proposed.headers['cache-control']).toBe('no-store');
    expect(proposed.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    const location = String(proposed.headers['location']);
    expect(location).toMatch(new RegExp(`^${testBaseUrl}/mission/pending/pnd_[A-Za-z0-9_-]{22}$`));

    const waiting = await asAgent(agent, { path: pendingPath(location) });
    expect(waiting.status).toBe(202);
    expect(waiting.json).toEqual({ status: 'pending' });
    expect(waiting.headers['cache-control']).toBe('no-store');

    const pendingId = location.split('/').pop()!;
    const approved = await asPrincipal(alice, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'approve' } });
    expect(approved.status).toBe(200);
    expect(Object.keys(approved.json)).toEqual(['s256']);
    expect(approved.headers['cache-control']).toBe('no-store');

    const polled = await asAgent(agent, { path: pendingPath(location) });
    expect(polled.status).toBe(200);
    expect(Object.keys(polled.json).sort()).toEqual(['mission', 's256']);
    const bytes = Buffer.from(String(polled.json['mission']), 'base64url');
    expect(createHash('sha256').update(bytes).digest('base64url')).toBe(polled.json['s256']);
    expect(polled.json['s256']).toBe(approved.json['s256']);
    const blob = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    expect(blob).toMatchObject({ approver: testBaseUrl, agent: ASSISTANT, description: 'Reconcile November invoices', approved_tools: ['invoices.read'] });

    const s256 = String(polled.json['s256']);
    const blobEvents = await events(`psblob-${s256}`);
    expect(blobEvents.map((event) => event.type)).toEqual(['MissionBlobStored']);
    expect(Buffer.from(String(blobEvents[0]!.data['blob']), 'base64url').equals(bytes)).toBe(true);
    const log = await events(`psmission-${s256}`);
    expect(log.map((event) => event.type)).toEqual(['MissionApproved']);
    expect(JSON.stringify(log.map(({ data, metadata }) => ({ data, metadata })))).not.toContain(String(polled.json['mission']));
    expect((await events(`psproposal-${pendingId}`)).map((event) => event.type)).toEqual(['ProposalSubmitted', 'ProposalApproved']);
  });

  it('DESIGN 3.1: a declined proposal polls as 403 {"error":"denied"}', async () => {
    const agent = await newAgent();
    const proposed = await asAgent(agent, { body: { description: 'Delete the archive' } });
    const location = String(proposed.headers['location']);
    const declined = await asPrincipal(alice, { path: '/mission/approvals', body: { pending_id: location.split('/').pop(), decision: 'decline' } });
    expect(declined.status).toBe(200);
    expect(declined.json).toEqual({ status: 'declined' });
    const polled = await asAgent(agent, { path: pendingPath(location) });
    expect(polled.status).toBe(403);
    expect(polled.json).toEqual({ error: 'denied' });
  });

  it('DESIGN 3.1, 3.2: only the proposing agent polls; a person not owning the agent cannot approve — both get the same 404 as an unknown id', async () => {
    const agent = await newAgent();
    const proposed = await asAgent(agent, { body: { description: 'Reconcile invoices' } });
    const location = String(proposed.headers['location']);
    const pendingId = location.split('/').pop()!;
    const unknownId = `pnd_${randomBytes(16).toString('base64url')}`;

    const byBob = await asPrincipal(bob, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'approve' } });
    const unknown = await asPrincipal(bob, { path: '/mission/approvals', body: { pending_id: unknownId, decision: 'approve' } });
    expect(byBob.status).toBe(404);
    expect(byBob.text).toBe(unknown.text);
    expect(byBob.json).toMatchObject({ error: 'not_found' });
    const byAdmin = await asPrincipal(ops, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'approve' } });
    expect(byAdmin.text).toBe(unknown.text);

    const otherAgent = await newAgent(RESEARCHER);
    const foreignPoll = await asAgent(otherAgent, { path: pendingPath(location) });
    const unknownPoll = await asAgent(agent, { path: `/mission/pending/${unknownId}` });
    expect(foreignPoll.status).toBe(404);
    expect(foreignPoll.text).toBe(unknownPoll.text);
    const byPerson = await asPrincipal(alice, { path: pendingPath(location) });
    expect(byPerson.text).toBe(unknownPoll.text);
    // The proposal is untouched and still pending for its agent.
    expect((await asAgent(agent, { path: pendingPath(location) })).status).toBe(202);
  });

  it('DESIGN 3.1 (crash safety): a proposal approved but with blob and mission missing is completed by the next poll', async () => {
    const agent = await newAgent();
    const proposed = await asAgent(agent, { body: { description: 'Recover after a crash' } });
    const location = String(proposed.headers['location']);
    const pendingId = location.split('/').pop()!;
    // Simulate a crash right after the commit point: only ProposalApproved is written.
    const stream = proposalStreamName(pendingId);
    const { state } = await aggregateStream(store, stream, proposalDecider);
    const now = new Date();
    const content = { description: 'Recover after a crash' };
    const s256 = missionS256(missionBlobBytes(proposalBlobFields(state, content, { approver: testBaseUrl, now })));
    await handleCommand(store, stream, proposalDecider, { type: 'ApproveProposal', person: { id: 'alice', tenant: 't1' }, ownsAgent: true, approver: testBaseUrl, content, s256, now }, {
      correlationId: 'c',
      causationId: 'c',
      actor: { id: 'alice', role: 'person' },
      now,
    });
    expect(await events(`psmission-${s256}`)).toEqual([]);

    const polled = await asAgent(agent, { path: pendingPath(location) });
    expect(polled.status).toBe(200);
    expect(polled.json['s256']).toBe(s256);
    expect((await events(`psmission-${s256}`)).map((event) => event.type)).toEqual(['MissionApproved']);
    expect((await events(`psblob-${s256}`)).map((event) => event.type)).toEqual(['MissionBlobStored']);
    // A second poll changes nothing.
    await asAgent(agent, { path: pendingPath(location) });
    expect(await events(`psmission-${s256}`)).toHaveLength(1);
  });

  it('spec 3 rule 3, DESIGN 3.1: after termination a poll of the approved proposal answers 403 mission_terminated (problem+json with mission_status and termination_reason), never the blob', async () => {
    const agent = await newAgent();
    const { s256, pending } = await approvedMission(agent);
    const terminated = await asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: requestId() } });
    expect(terminated.status).toBe(200);
    const logged = (await events(`psmission-${s256}`)).length;

    const polled = await asAgent(agent, { path: pending });
    expect(polled.status).toBe(403);
    expect(polled.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(polled.headers['cache-control']).toBe('no-store');
    expect(polled.json).toMatchObject({ error: 'mission_terminated', mission_status: 'terminated', termination_reason: 'completed' });
    expect(polled.json).not.toHaveProperty('mission');
    expect(polled.json).not.toHaveProperty('s256');
    // The refusal records nothing and re-creates nothing: the first termination stands.
    expect(await events(`psmission-${s256}`)).toHaveLength(logged);
    expect((await events(`psblob-${s256}`)).map((event) => event.type)).toEqual(['MissionBlobStored']);
    // Another agent still gets the unknown-id 404 (DESIGN 3.1): the refusal discloses nothing to it.
    expect((await asAgent(await newAgent(RESEARCHER), { path: pending })).status).toBe(404);
  });

  it('DESIGN 3.1: a Management Principal cannot propose; a proposal with an unknown member is invalid_request', async () => {
    expect((await asPrincipal(alice, { body: { description: 'x' } })).status).toBe(403);
    const agent = await newAgent();
    const refused = await asAgent(agent, { body: { description: 'x', approver: 'https://evil.example' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: 'invalid_request' });
  });
});
