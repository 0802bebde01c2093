import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handleCommand, verifyHashChain } from '@mission/es-kit';
import { StreamDeletedError, type EventStore } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { missionDecider, missionStreamName } from '@mission/ps-domain';
import { startPersonServer } from '../testing/run-person-server.js';
import { alice, bob, eventually, events, newAgent, ops, PsClient, requestId, sleep } from '../testing/ps-http.spec-helper.js';

let dataDir: string;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);

async function start(): Promise<void> {
  ({ service } = await startPersonServer(dataDir));
  store = service.app.get<EventStore>(EVENT_STORE);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ps-lifecycle-'));
  await start();
});

afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const types = async (stream: string): Promise<string[]> => (await events(store, stream)).map((event) => event.type);

async function blobDeleted(s256: string): Promise<boolean> {
  try {
    await events(store, `psblob-${s256}`);
    return false;
  } catch (error) {
    if (error instanceof StreamDeletedError) return true;
    throw error;
  }
}

describe('spec 3: expires_at reached → terminated expired, attributed to the PS scheduler (running Person Server)', () => {
  // How far ahead expires_at lies: proposal, approval and poll (and the stop below) must all happen before it, also on a
  // slow, loaded CI machine (an approval whose expires_at has passed is refused); the scheduler then gets a generous deadline.
  const EXPIRY_LEAD_MS = 4_000;
  const SCHEDULER_DEADLINE_MS = EXPIRY_LEAD_MS + 20_000;

  it('spec 3, 6: with no request after approval, the log records MissionTerminated expired at expires_at by the PS scheduler', async () => {
    const agent = await newAgent();
    const expiresAt = new Date(Date.now() + EXPIRY_LEAD_MS).toISOString();
    const { s256 } = await ps.approvedMission(agent, { expiresAt });
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved']);
    await eventually(async () => (await types(`psmission-${s256}`)).length === 2, SCHEDULER_DEADLINE_MS);
    const log = await events(store, `psmission-${s256}`);
    expect(log.map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated']);
    expect(log[1]!.data).toMatchObject({ reason: 'expired', terminated_at: expiresAt, sequence: 2, actor: { id: 'ps-scheduler', role: 'system' } });
    await expect(verifyHashChain(store, `psmission-${s256}`)).resolves.toMatchObject({ ok: true });
    // Status afterwards reports it (and adds only the read).
    const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'expired', terminated_at: expiresAt });
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved', 'MissionTerminated', 'MissionStatusRead']);
  }, 60_000);

  it('DESIGN 4: /readyz reports the lifecycle process managers', async () => {
    const ready = await ps.get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.stringify(ready.json['checks'])).toContain('process-manager:ps_mission_expiry');
    expect(JSON.stringify(ready.json['checks'])).toContain('process-manager:ps_blob_deletion');
  });

  it('spec 3 (durable scheduler): the service stopped before expires_at and started again records the expiry once, without any request', async () => {
    const agent = await newAgent();
    const expiresAt = new Date(Date.now() + EXPIRY_LEAD_MS).toISOString();
    const { s256 } = await ps.approvedMission(agent, { expiresAt });
    await service.stop('restart test');
    await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 200);
    await start();
    await eventually(async () => (await types(`psmission-${s256}`)).includes('MissionTerminated'), SCHEDULER_DEADLINE_MS);
    const terminated = (await events(store, `psmission-${s256}`)).filter((event) => event.type === 'MissionTerminated');
    expect(terminated).toHaveLength(1);
    expect(terminated[0]!.data).toMatchObject({ reason: 'expired', terminated_at: expiresAt, actor: { id: 'ps-scheduler', role: 'system' } });
  }, 60_000);
});

describe('spec 3 rule 5, spec 8: deleting a terminated mission body keeps psmission-<s256> as the tombstone (POST /mission/blob-deletions)', () => {
  const deletion = (s256: string, extra: Record<string, unknown> = {}) => ({ path: '/mission/blob-deletions', body: { mission_s256: s256, request_id: requestId(), purpose: 'retention: body no longer needed', ...extra } });

  it('spec 3 rule 5: the body of an active mission is not deleted (409 mission_active); the blob stays', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const refused = await ps.asPrincipal(ops, deletion(s256));
    expect([refused.status, refused.json['error'], String(refused.headers['content-type'])]).toEqual([409, 'mission_active', expect.stringMatching(/^application\/problem\+json/)]);
    expect(await types(`psblob-${s256}`)).toEqual(['MissionBlobStored']);
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved']);
  });

  it('spec 3 rule 5, 2.8: an administrator deletes the body of a terminated mission; MissionBlobDeleted (sequence, actor, role, authorization, request_id, purpose) is logged; psblob is gone', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const terminated = await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    expect(terminated.status).toBe(200);
    const request = deletion(s256);
    const deleted = await ps.asPrincipal(ops, request);
    expect(deleted.status).toBe(200);
    expect(deleted.headers['cache-control']).toBe('no-store');
    expect(deleted.json).toEqual({ mission_s256: s256, mission_status: 'terminated', termination_reason: 'revoked', terminated_at: terminated.json['terminated_at'], blob_deleted_at: expect.any(String) });
    expect(await blobDeleted(s256)).toBe(true);
    const log = await events(store, `psmission-${s256}`);
    expect(log.map((event) => event.type)).toEqual(['MissionApproved', 'MissionTerminated', 'MissionBlobDeleted']);
    expect(log[2]!.data).toMatchObject({
      mission_s256: s256,
      sequence: 3,
      actor: { id: 'ops', role: 'admin' },
      authorization: { decision: 'permit', policy: 'ps:tenant-admin' },
      request_id: request.body.request_id,
      purpose: request.body.purpose,
      blob_stream: `psblob-${s256}`,
      termination_reason: 'revoked',
    });
    await expect(verifyHashChain(store, `psmission-${s256}`)).resolves.toMatchObject({ ok: true });

    // A repeat (any request_id) answers the same and records nothing.
    const again = await ps.asPrincipal(ops, deletion(s256));
    expect(again.json).toEqual(deleted.json);
    expect(await types(`psmission-${s256}`)).toHaveLength(3);
  });

  it('spec 3 rule 5, 4.1, 4.2: after deletion status answers terminated with the first reason; terminate answers the terminal status; the log verifies', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const first = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: requestId() } });
    expect((await ps.asPrincipal(ops, deletion(s256))).status).toBe(200);

    const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'completed', terminated_at: first.json['terminated_at'] });
    const late = await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    expect(late.status).toBe(200);
    expect(late.json).toMatchObject({ mission_status: 'terminated', termination_reason: 'completed', terminated_at: first.json['terminated_at'] });
    const tree = await ps.asAgent(agent, { body: { operation: 'delegation_tree', mission_s256: s256 } });
    expect(tree.status).toBe(200);
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved', 'MissionTerminated', 'MissionBlobDeleted', 'MissionStatusRead', 'LateTerminationRequested', 'DelegationTreeRead']);
    await expect(verifyHashChain(store, `psmission-${s256}`)).resolves.toMatchObject({ ok: true });
  });

  it('spec 3 rule 1, rule 5: a later poll of the approved proposal answers mission_terminated and neither re-creates the blob nor re-activates the mission; re-approving is refused', async () => {
    const agent = await newAgent();
    const { s256, pendingPath, pendingId } = await ps.approvedMission(agent);
    await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    expect((await ps.asPrincipal(ops, deletion(s256))).status).toBe(200);
    const before = await types(`psmission-${s256}`);

    const polled = await ps.asAgent(agent, { path: pendingPath });
    expect(polled.status).toBe(403);
    expect(polled.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(polled.json).toMatchObject({ error: 'mission_terminated', mission_status: 'terminated', termination_reason: 'revoked' });
    expect(polled.text).not.toContain('"mission":');
    expect(await blobDeleted(s256)).toBe(true);
    expect(await types(`psmission-${s256}`)).toEqual(before);

    const reapproved = await ps.asPrincipal(alice, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'approve' } });
    expect([reapproved.status, reapproved.json['error']]).toEqual([400, 'invalid_request']);
    expect(await blobDeleted(s256)).toBe(true);
    expect(await types(`psmission-${s256}`)).toEqual(before);
    const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json['mission_status']).toBe('terminated');
  });

  it('spec 5.4, 5.9: only an administrator of the tenant; an agent or a person is refused before lookup (403 access_denied); an unknown reference is mission_not_found; a malformed one invalid_mission_reference; purpose is required', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    for (const reply of [await ps.asAgent(agent, deletion(s256)), await ps.asPrincipal(alice, deletion(s256)), await ps.asPrincipal(bob, deletion(s256))]) {
      expect([reply.status, reply.json['error']]).toEqual([403, 'access_denied']);
    }
    const unknown = await ps.asPrincipal(ops, deletion('A'.repeat(43)));
    expect([unknown.status, unknown.json['error']]).toEqual([404, 'mission_not_found']);
    const malformed = await ps.asPrincipal(ops, deletion('not-a-digest'));
    expect([malformed.status, malformed.json['error']]).toEqual([400, 'invalid_mission_reference']);
    const noPurpose = await ps.asPrincipal(ops, { path: '/mission/blob-deletions', body: { mission_s256: s256, request_id: requestId() } });
    expect([noPurpose.status, noPurpose.json['error']]).toEqual([400, 'invalid_request']);
    const duplicate = await ps.asPrincipal(ops, { path: '/mission/blob-deletions', rawBody: `{"mission_s256":"${s256}","mission_s256":"${s256}"}` });
    expect([duplicate.status, duplicate.json['error']]).toEqual([400, 'invalid_request']);
    expect(await types(`psblob-${s256}`)).toEqual(['MissionBlobStored']);
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved', 'MissionTerminated']);
  });

  it('spec 3 rule 5 (crash safety): MissionBlobDeleted committed but psblob not yet deleted → the ps_blob_deletion process manager deletes it', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    const now = new Date();
    // As if the service stopped right after the commit point.
    await handleCommand(
      store,
      missionStreamName(s256),
      missionDecider,
      { type: 'DeleteMissionBlob', caller: { role: 'admin', id: 'ops', tenant: 't1' }, requestId: requestId(), purpose: 'retention', now },
      { correlationId: 'c', causationId: 'c', actor: { id: 'ops', role: 'admin' }, now },
      { hashChain: true },
    );
    await eventually(() => blobDeleted(s256), 8000);
  });
});
