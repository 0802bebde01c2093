import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { handleCommand } from '@mission/es-kit';
import { missionBlobBytes, missionS256, proposalBlobFields, proposalDecider, proposalStreamName, TOKEN_POLICIES } from '@mission/ps-domain';
import { aggregateStream, verifyHashChain } from '@mission/es-kit';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { callerKey, type AuthenticatedCaller } from '../identity/authenticated-caller.js';
import { agentRequest, ALICE_KEY, BOB_KEY, freshKey, hwkSignatureKey, OPS_KEY, principalKey, signedRequest, type TestKey, type TestRequest } from '../testing/signed-request.spec-helper.js';
import { headersExceptDateAndRequestId, PsClient, requestId, type Reply } from '../testing/ps-http.spec-helper.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';
import { TokenLedger } from '../store/token-ledger.js';
import { TreeCursors } from '../use-cases/read-delegation-tree/tree-cursor.js';

const ASSISTANT = 'aauth:assistant@agents.example';
const RESEARCHER = 'aauth:researcher@agents.example';
const alice = principalKey(ALICE_KEY);
const bob = principalKey(BOB_KEY);
const ops = principalKey(OPS_KEY);

let dataDir: string;
let service: RunningService;
let store: EventStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ps-missions-'));
  ({ service } = await startPersonServer(dataDir));
  store = service.app.get<EventStore>(EVENT_STORE);
});

afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

// Every signature must be unique (replay cache, DESIGN 3.2); Ed25519 is deterministic, so vary `created`.
let tick = 0;
const created = (): number => Math.floor(Date.now() / 1000) - (tick++ % 40);

/** Sends a signed request over HTTP to the running service, exactly as signed (bytes and headers). */
const send = (request: TestRequest): Promise<Reply> => new PsClient(() => service).send(request);

interface Agent {
  readonly id: string;
  readonly key: TestKey;
}

async function newAgent(id = ASSISTANT): Promise<Agent> {
  return { id, key: await freshKey() };
}

async function asAgent(agent: Agent, options: { body?: unknown; rawBody?: string; path?: string; method?: string }): Promise<Reply> {
  const now = Math.floor(Date.now() / 1000);
  const body = options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const request = await agentRequest({
    agentKey: agent.key,
    signedUrl: testBaseUrl,
    created: created(),
    tokenClaims: { sub: agent.id, iat: now - 10, exp: now + 600 },
    ...(body !== undefined ? { body } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.method !== undefined ? { method: options.method } : {}),
  });
  return send(request);
}

async function asPrincipal(key: TestKey, options: { body?: unknown; rawBody?: string; path?: string }): Promise<Reply> {
  const body = options.rawBody ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  return send(
    signedRequest({ key, signatureKey: hwkSignatureKey(key), signedUrl: testBaseUrl, created: created(), ...(body !== undefined ? { body } : {}), ...(options.path !== undefined ? { path: options.path } : {}) }),
  );
}

const pendingPath = (location: string): string => location.slice(testBaseUrl.length);

/** Proposal → approval by the owning person → poll; returns the Mission Reference digest. */
async function approvedMission(agent: Agent, options: { owner?: TestKey; expiresAt?: string; description?: string } = {}): Promise<{ s256: string; mission: string; pending: string }> {
  const proposed = await asAgent(agent, { body: { description: options.description ?? 'Reconcile invoices', tools: ['invoices.read'] } });
  expect(proposed.status).toBe(202);
  const location = String(proposed.headers['location']);
  const pendingId = location.split('/').pop()!;
  const approved = await asPrincipal(options.owner ?? alice, {
    path: '/mission/approvals',
    body: { pending_id: pendingId, decision: 'approve', ...(options.expiresAt !== undefined ? { expires_at: options.expiresAt } : {}) },
  });
  expect(approved.status).toBe(200);
  const polled = await asAgent(agent, { path: pendingPath(location) });
  expect(polled.status).toBe(200);
  return { s256: String(polled.json['s256']), mission: String(polled.json['mission']), pending: pendingPath(location) };
}

async function events(stream: string): Promise<RecordedEvent[]> {
  const read: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) read.push(event);
  return read;
}


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

describe('spec 4 request rules', () => {
  it('spec 4: a duplicate JSON member name → invalid_request', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { rawBody: `{"operation":"status","mission_s256":"${s256}","mission_s256":"${s256}"}` });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('spec 4: an unknown operation → unsupported_operation', async () => {
    const agent = await newAgent();
    const reply = await asAgent(agent, { body: { operation: 'pause', mission_s256: 'x' } });
    expect([reply.status, reply.json['error']]).toEqual([400, 'unsupported_operation']);
  });

  it('spec 2.1, 5.9: a malformed mission_s256 → invalid_mission_reference before any lookup', async () => {
    const agent = await newAgent();
    for (const reference of ['https://ps.example/missions/1', 'abc', 42]) {
      const reply = await asAgent(agent, { body: { operation: 'status', mission_s256: reference } });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_mission_reference']);
    }
  });
});

describe('spec 5.9 anti-oracle', () => {
  it('spec 5.9: an absent mission and a mission the caller may not know give byte-identical status, body and headers; the probe is audited with a keyed digest only', async () => {
    const { s256 } = await approvedMission(await newAgent(RESEARCHER), { owner: bob });
    const absent = createHash('sha256').update(randomBytes(8)).digest('base64url');
    const stranger = await newAgent();
    for (const operation of [{ operation: 'status' }, { operation: 'terminate', reason: 'revoked', request_id: requestId() }, { operation: 'delegation_tree' }]) {
      const foreign = await asAgent(stranger, { body: { ...operation, mission_s256: s256 } });
      const missing = await asAgent(stranger, { body: { ...operation, mission_s256: absent } });
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(foreign.status);
      expect(missing.text).toBe(foreign.text);
      expect(headersExceptDateAndRequestId(missing)).toEqual(headersExceptDateAndRequestId(foreign));
    }
    const byAlice = await asPrincipal(alice, { body: { operation: 'status', mission_s256: s256 } });
    const byAliceAbsent = await asPrincipal(alice, { body: { operation: 'status', mission_s256: absent } });
    expect(byAlice.text).toBe(byAliceAbsent.text);
    expect(headersExceptDateAndRequestId(byAlice)).toEqual(headersExceptDateAndRequestId(byAliceAbsent));

    const audit = service.app.get(SecurityAudit);
    await audit.flush();
    const probes = (await events(SECURITY_AUDIT_STREAM)).filter((event) => event.data['kind'] === 'mission_probe');
    expect(probes.map((event) => event.data['mission_ref_hmac'])).toEqual(expect.arrayContaining([audit.missionReferenceDigest(s256), audit.missionReferenceDigest(absent)]));
    expect(new Set(probes.map((event) => event.data['reason']))).toEqual(new Set(['absent', 'not_authorized']));
    const text = JSON.stringify((await events(SECURITY_AUDIT_STREAM)).map(({ data, metadata }) => ({ data, metadata })));
    expect(text).not.toContain(s256);
    expect(text).not.toContain(absent);
    // No false mission record (spec 6).
    expect(await events(`psmission-${absent}`)).toEqual([]);
  });
});

describe('spec 4.3 delegation_tree', () => {
  it('spec 4.3, 2.7: the root node from verified data; an agent sees token identifiers of its own node only; DelegationTreeRead is logged', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ mission_s256: s256, as_of: expect.any(String), nodes: [{ agent: ASSISTANT, relationship: 'root', tokens: [] }], complete: true });
    const byPerson = await asPrincipal(alice, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: 1 } });
    expect(byPerson.json['nodes']).toEqual([{ agent: ASSISTANT, relationship: 'root', tokens: [] }]);
    expect((await events(`psmission-${s256}`)).filter((event) => event.type === 'DelegationTreeRead')).toHaveLength(2);
  });

  it.each([0, 201, 1.5, '10', -1])('spec 4.3, DESIGN 3.3: max_results %p is invalid_request (default 50, maximum 200)', async (maxResults) => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, max_results: maxResults } });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
  });

  /**
   * Records `count` sub-agent Auth Tokens under `s256` through the app's own TokenLedger — the record
   * POST /token makes after verifying the agent and sub-agent tokens — so a page-size test needs no
   * hundreds of signed token requests. Returns the sub-agents in recording order (the tree's order).
   */
  async function seedSubAgents(s256: string, count: number): Promise<string[]> {
    const ledger = service.app.get(TokenLedger);
    const now = new Date();
    const context = { correlationId: randomUUID(), causationId: `test-seed:${s256}`, actor: { id: ASSISTANT, role: 'agent' }, now };
    const agents = Array.from({ length: count }, (_, index) => `aauth:helper-${String(index).padStart(3, '0')}@agents.example`);
    // Sent together, the records are group-committed (a few appends instead of one per token).
    await Promise.all(
      agents.map((agent, index) =>
        ledger.execute(
          s256,
          {
            type: 'RecordIssuedToken',
            approver: testBaseUrl,
            missionS256: s256,
            token: { iss: testBaseUrl, jti: `seed-${index}`, aud: 'https://files.example', exp: new Date(now.getTime() + 300_000), origin: 'issued', agent, relationship: 'sub_agent', parentAgent: ASSISTANT },
            actor: { id: ASSISTANT, role: 'agent' },
            policy: TOKEN_POLICIES.owningAgent,
            now,
          },
          context,
        ),
      ),
    );
    return agents;
  }

  /** Every page of the tree for `alice`, following `next_cursor` (with `max_results` when given). */
  async function allPages(s256: string, maxResults?: number): Promise<Reply[]> {
    const pages: Reply[] = [];
    let cursor: string | undefined;
    do {
      const page = await asPrincipal(alice, {
        body: { operation: 'delegation_tree', mission_s256: s256, ...(maxResults !== undefined ? { max_results: maxResults } : {}), ...(cursor !== undefined ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      pages.push(page);
      cursor = page.json['next_cursor'] as string | undefined;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  it('spec 4.3 rule 1, 8, DESIGN 3.3: without max_results a page holds the default 50 nodes when more exist; the cursor pages through all of them once', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const helpers = await seedSubAgents(s256, 120);

    const pages = await allPages(s256);
    expect(pages.map((page) => (page.json['nodes'] as unknown[]).length)).toEqual([50, 50, 21]);
    expect(pages.map((page) => page.json['complete'])).toEqual([false, false, true]);
    expect(pages.map((page) => typeof page.json['next_cursor'])).toEqual(['string', 'string', 'undefined']);
    const nodes = pages.flatMap((page) => page.json['nodes'] as { agent: string; relationship: string; parent_agent?: string }[]);
    expect(nodes[0]).toMatchObject({ agent: ASSISTANT, relationship: 'root' });
    expect(nodes.slice(1).map((node) => node.agent)).toEqual(helpers);
    expect(nodes.slice(1).every((node) => node.relationship === 'sub_agent' && node.parent_agent === ASSISTANT)).toBe(true);
    // Spec 6: one DelegationTreeRead per page, with the page's node count.
    const reads = (await events(`psmission-${s256}`)).filter((event) => event.type === 'DelegationTreeRead');
    expect(reads.map((event) => [event.data['node_count'], event.data['complete']])).toEqual([[50, false], [50, false], [21, true]]);
  });

  it('spec 4.3 rule 1, 8, DESIGN 3.3: max_results 200 (the documented maximum) is accepted and returns 200 nodes; the next page has the rest', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    await seedSubAgents(s256, 250);

    const pages = await allPages(s256, 200);
    expect(pages.map((page) => (page.json['nodes'] as unknown[]).length)).toEqual([200, 51]);
    expect(pages.map((page) => page.json['complete'])).toEqual([false, true]);
    const agents = pages.flatMap((page) => (page.json['nodes'] as { agent: string }[]).map((node) => node.agent));
    expect(new Set(agents).size).toBe(251);
  });

  it('spec 4.3 rule 1: a cursor works only for its caller and mission, unaltered and within 5 minutes; otherwise invalid_request', async () => {
    const agent = await newAgent();
    const { s256 } = await approvedMission(agent);
    const other = await approvedMission(agent, { description: 'Another mission' });
    const cursors = service.app.get(TreeCursors);
    const me: AuthenticatedCaller = { kind: 'agent', provider: 'https://agents.example', agent: ASSISTANT, agentJkt: 'x', tokenClaims: { iss: 'https://agents.example', sub: ASSISTANT, iat: 0, exp: 0 } };
    const scope = { callerKey: callerKey(me), missionS256: s256 };
    const now = new Date();

    const valid = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, cursor: cursors.issue(scope, 1, now) } });
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({ nodes: [], complete: true });
    expect(valid.json).not.toHaveProperty('next_cursor');

    const cursor = cursors.issue(scope, 0, now);
    const [payload, mac] = cursor.split('.') as [string, string];
    const tampered = `${Buffer.from(JSON.stringify({ o: 0, e: 9_999_999_999 })).toString('base64url')}.${mac}`;
    const refusals = [
      tampered,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      cursors.issue({ callerKey: 'principal:alice', missionS256: s256 }, 0, now),
      cursors.issue({ ...scope, missionS256: other.s256 }, 0, now),
      cursors.issue(scope, 0, new Date(now.getTime() - 301_000)),
      'garbage',
    ];
    for (const bad of refusals) {
      const reply = await asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256, cursor: bad } });
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    }
  });
});
