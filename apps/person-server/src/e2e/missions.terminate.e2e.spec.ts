import { createHash, randomBytes } from 'node:crypto';
import { verifyHashChain } from '@mission/es-kit';
import { alice, bob, newAgent, ops, requestId } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, asPrincipal, events, RESEARCHER, startMissionsServer, store } from '../testing/missions.spec-helper.js';

/** Spec 4.2 over HTTP: the `terminate` operation — reasons per role, supersession, idempotency, races, late requests. */
startMissionsServer();

describe('spec 4.2 terminate', () => {
  const terminate = (s256: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ operation: 'terminate', mission_s256: s256, request_id: requestId(), ...extra });

  it('spec 4.2, 2.5: the response has mission_status, terminated_at, termination_reason and token_residual (complete false while untracked access modes exist)', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: terminate(s256, { reason: 'revoked' }) });
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.json).toEqual({
      mission_s256: s256,
      mission_status: 'terminated',
      terminated_at: expect.any(String),
      termination_reason: 'revoked',
      token_residual: { tracked: 0, revocation_attempted: 0, revocation_confirmed: 0, complete: false },
    });
  });

  it('spec 5.4: the Owning Agent may only revoke (completed, superseded, administrative are invalid_termination_reason)', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    for (const reason of ['completed', 'superseded', 'administrative', 'expired', 'paused']) {
      const refused = await asAgent(agent, { body: terminate(s256, { reason, replacement_s256: s256 }) });
      expect([reason, refused.status, refused.json['error']]).toEqual([reason, 400, 'invalid_termination_reason']);
    }
    expect((await asAgent(agent, { body: terminate(s256, { reason: 'revoked' }) })).json['termination_reason']).toBe('revoked');
  });

  it.each(['completed', 'revoked'])('spec 5.4: the Person may terminate with %s', async (reason) => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asPrincipal(alice, { body: terminate(s256, { reason }) });
    expect([reply.status, reply.json['termination_reason']]).toEqual([200, reason]);
  });

  it('spec 5.4, 4.2 rule 1: the Person may supersede with an approved replacement; it is committed in MissionTerminated', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const replacement = await approvedMission(agent, { description: 'Reconcile invoices, v2' });
    const reply = await asPrincipal(alice, { body: terminate(s256, { reason: 'superseded', replacement_s256: replacement.s256 }) });
    expect([reply.status, reply.json['termination_reason']]).toEqual([200, 'superseded']);
    const terminated = (await events(`psmission-${s256}`)).find((event) => event.type === 'MissionTerminated');
    expect(terminated?.data).toMatchObject({ reason: 'superseded', replacement_s256: replacement.s256 });
  });

  it('spec 4.2 rule 1: superseded with a missing, malformed, unknown, foreign or self replacement → the same invalid_request', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const bobs = await approvedMission(await newAgent(RESEARCHER), { owner: bob });
    const unknown = createHash('sha256').update(randomBytes(8)).digest('base64url');
    const replies = [];
    for (const replacement of [unknown, bobs.s256, s256, 'not-a-digest']) {
      replies.push(await asPrincipal(alice, { body: terminate(s256, { reason: 'superseded', replacement_s256: replacement }) }));
    }
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(replies[0]!.text);
    }
    expect(replies[0]!.json['error']).toBe('invalid_request');
    const missing = await asPrincipal(alice, { body: terminate(s256, { reason: 'superseded' }) });
    expect([missing.status, missing.json['error']]).toEqual([400, 'invalid_request']);
    expect((await asPrincipal(alice, { body: { operation: 'status', mission_s256: s256 } })).json['mission_status']).toBe('active');
  });

  it('spec 5.4: an administrator needs a purpose; with one it may terminate administratively', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const without = await asPrincipal(ops, { body: terminate(s256, { reason: 'administrative' }) });
    expect([without.status, without.json['error']]).toEqual([400, 'invalid_request']);
    const completed = await asPrincipal(ops, { body: terminate(s256, { reason: 'completed', purpose: 'cleanup' }) });
    expect(completed.json['error']).toBe('invalid_termination_reason');
    const ok = await asPrincipal(ops, { body: terminate(s256, { reason: 'administrative', purpose: 'incident 42' }) });
    expect([ok.status, ok.json['termination_reason']]).toEqual([200, 'administrative']);
    const terminated = (await events(`psmission-${s256}`)).find((event) => event.type === 'MissionTerminated');
    expect(terminated?.data).toMatchObject({ purpose: 'incident 42', actor: { id: 'ops', role: 'admin' } });
  });

  it('spec 4.2 rule 2: an identical repeat returns the byte-identical body and records a single MissionTerminated', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const body = terminate(s256, { reason: 'revoked', purpose: 'done early' });
    const first = await asAgent(agent, { body });
    const repeat = await asAgent(agent, { body });
    const reordered = await asAgent(agent, { rawBody: JSON.stringify(Object.fromEntries(Object.entries(body).reverse())) });
    expect(first.status).toBe(200);
    expect(repeat.text).toBe(first.text);
    expect(reordered.text).toBe(first.text);
    const log = await events(`psmission-${s256}`);
    expect(log.filter((event) => event.type === 'MissionTerminated')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'LateTerminationRequested')).toHaveLength(0);
  });

  it('spec 4.2 rule 2: the same request_id with different content → 409 idempotency_conflict', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const id = requestId();
    expect((await asPrincipal(alice, { body: terminate(s256, { reason: 'revoked', request_id: id }) })).status).toBe(200);
    const conflict = await asPrincipal(alice, { body: terminate(s256, { reason: 'completed', request_id: id }) });
    expect(conflict.status).toBe(409);
    expect(conflict.json['error']).toBe('idempotency_conflict');
    expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('spec 3 rule 2: 20 concurrent terminates with different request_ids → exactly one MissionTerminated; every caller gets the same terminal status', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? asAgent(agent, { body: terminate(s256, { reason: 'revoked' }) }) : asPrincipal(alice, { body: terminate(s256, { reason: 'completed' }) }))));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    const outcomes = new Set(replies.map((reply) => JSON.stringify([reply.json['terminated_at'], reply.json['termination_reason']])));
    expect(outcomes.size).toBe(1);
    const log = await events(`psmission-${s256}`);
    expect(log.filter((event) => event.type === 'MissionTerminated')).toHaveLength(1);
    expect(log.filter((event) => event.type === 'LateTerminationRequested')).toHaveLength(19);
  });

  it('spec 3 (terminated row): a later authorized terminate returns the existing terminal status and logs LateTerminationRequested; the first reason stands; the log verifies', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const first = await asPrincipal(alice, { body: terminate(s256, { reason: 'completed' }) });
    const late = await asAgent(agent, { body: terminate(s256, { reason: 'revoked' }) });
    expect(late.status).toBe(200);
    expect(late.json).toMatchObject({ termination_reason: 'completed', terminated_at: first.json['terminated_at'] });
    const log = await events(`psmission-${s256}`);
    expect(log.map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated', 'LateTerminationRequested']);
    expect(log.map((event) => event.data['sequence'])).toEqual([1, 2, 3]);
    await expect(verifyHashChain(store, `psmission-${s256}`)).resolves.toMatchObject({ ok: true });
  });

  it.each([
    ['too short', 'short-id'],
    ['one character repeated', 'a'.repeat(22)],
    ['22 hex digits (88 bits)', '7d0f3b2e9a4c41d8b6e5f1'],
    ['a UUID (122 bits)', '3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34'],
  ])('spec 4.2, 8: a request_id under 128 bits (%s) → invalid_request; the mission stays active', async (_, id) => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: terminate(s256, { reason: 'revoked', request_id: id }) });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(String(reply.json['detail'])).toContain('128 bits');
    expect((await asAgent(agent, { body: { operation: 'status', mission_s256: s256 } })).json['mission_status']).toBe('active');
  });
});
