import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { SecurityAudit, SECURITY_AUDIT_STREAM } from '../abuse/security-audit.js';
import { alice, bob, events, newAgent, ops, PsClient, requestId } from '../testing/ps-http.spec-helper.js';
import { startPersonServer } from '../testing/run-person-server.js';

/**
 * Conformance gaps found by the MUST audit of spec mission-management (docs/conformance/mission-management.md):
 * each test names the spec section whose MUST / MUST NOT / REQUIRED it covers.
 */

let dataDir: string;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ps-conformance-'));
  ({ service } = await startPersonServer(dataDir));
  store = service.app.get<EventStore>(EVENT_STORE);
});

afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const types = async (stream: string): Promise<string[]> => (await events(store, stream)).map((event) => event.type);
const terminate = (s256: string, extra: Record<string, unknown> = {}) => ({ body: { operation: 'terminate', mission_s256: s256, request_id: requestId(), ...extra } });
const status = (s256: string, extra: Record<string, unknown> = {}) => ({ body: { operation: 'status', mission_s256: s256, ...extra } });

describe('spec 2.1: the Mission Reference — only missions this PS approved, no forwarding, no alias', () => {
  it('spec 2.1 rule 2: an alias of a real reference (padded, standard base64 alphabet, hex, surrounding space) is never resolved to it: invalid_mission_reference (or mission_not_found for a well-formed other digest); nothing is logged on the mission', async () => {
    const agent = await newAgent();
    const { s256, mission } = await ps.approvedMission(agent);
    const digest = createHash('sha256').update(Buffer.from(mission, 'base64url')).digest();
    const aliases = [`${s256}=`, digest.toString('base64').replace(/=+$/, ''), digest.toString('hex'), ` ${s256}`, `${s256}\n`, s256.toLowerCase() === s256 ? s256.toUpperCase() : s256.toLowerCase()];
    for (const alias of aliases) {
      if (alias === s256) continue;
      const reply = await ps.asAgent(agent, status(alias));
      expect([400, 404]).toContain(reply.status);
      expect(['invalid_mission_reference', 'mission_not_found']).toContain(reply.json['error']);
    }
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved']);
  });

  it('spec 2.1 rules 1–2: approver is not a request member — an approver naming another PS is ignored: the reference resolves here, never elsewhere', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const here = await ps.asAgent(agent, status(s256, { approver: 'https://other-ps.example' }));
    expect(here.status).toBe(200);
    expect(here.json).toMatchObject({ mission_s256: s256, mission_status: 'active' });
    expect(here.json['approver']).toBeUndefined();
    // A digest this PS never approved is not found here, whatever approver the request names (no forwarding).
    const elsewhere = await ps.asAgent(agent, status(createHash('sha256').update('approved by another PS').digest('base64url'), { approver: 'https://other-ps.example' }));
    expect([elsewhere.status, elsewhere.json['error']]).toEqual([404, 'mission_not_found']);
  });
});

describe('spec 2.4, 3 rule 1: termination reasons are audit facts, never states', () => {
  it.each([
    ['revoked', 'agent'],
    ['completed', 'person'],
    ['superseded', 'person'],
    ['administrative', 'admin'],
  ] as const)('spec 2.4: after %s the status is terminated (never the reason), and a later terminate with another reason changes nothing', async (reason, role) => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const extra: Record<string, unknown> = { reason };
    if (reason === 'superseded') extra['replacement_s256'] = (await ps.approvedMission(await newAgent(), { description: 'the replacement' })).s256;
    if (role === 'admin') extra['purpose'] = 'policy review';
    const first = role === 'agent' ? await ps.asAgent(agent, terminate(s256, extra)) : await ps.asPrincipal(role === 'person' ? alice : ops, terminate(s256, extra));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ mission_status: 'terminated', termination_reason: reason });
    const later = await ps.asPrincipal(ops, terminate(s256, { reason: reason === 'revoked' ? 'administrative' : 'revoked', purpose: 'again' }));
    expect(later.json).toMatchObject({ mission_status: 'terminated', termination_reason: reason, terminated_at: first.json['terminated_at'] });
    const read = await ps.asAgent(agent, status(s256));
    expect(read.json).toMatchObject({ mission_status: 'terminated', termination_reason: reason, terminated_at: first.json['terminated_at'] });
    expect((await types(`psmission-${s256}`)).filter((type) => type === 'MissionTerminated')).toHaveLength(1);
  });
});

describe('spec 2.8: the mission log never holds keys, raw Agent Tokens or the blob', () => {
  it('spec 2.8: after status, terminate and delegation_tree by the Owning Agent the log contains neither its Agent Token, nor the blob, nor key material', async () => {
    const agent = await newAgent();
    const { s256, mission } = await ps.approvedMission(agent);
    const tokens: string[] = [];
    for (const body of [status(s256).body, { operation: 'delegation_tree', mission_s256: s256 }, terminate(s256, { reason: 'revoked' }).body]) {
      const request = await ps.agentSigned(agent, { body });
      const token = /jwt="([^"]+)"/.exec(request.headers['signature-key']!)![1]!;
      tokens.push(token);
      expect((await ps.send(request)).status).toBe(200);
    }
    const log = JSON.stringify((await events(store, `psmission-${s256}`)).map(({ type, data, metadata }) => ({ type, data, metadata })));
    expect(JSON.parse(log)).toHaveLength(4);
    for (const token of tokens) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(token.split('.')[2]!);
    }
    expect(log).not.toContain(mission);
    expect(log).not.toContain(Buffer.from(mission, 'base64url').toString('utf8'));
    expect(log).not.toContain(String(agent.key.privateJwk['d']));
    expect(log).not.toContain('Reconcile invoices');
  });
});

describe('spec 4.2: required members and idempotency keyed by (authenticated caller, request_id)', () => {
  it('spec 4.2: a terminate without request_id or reason is invalid_request, without mission_s256 invalid_mission_reference; nothing is logged', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const noRequestId = await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked' } });
    const noReason = await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, request_id: requestId() } });
    const noReference = await ps.asAgent(agent, { body: { operation: 'terminate', reason: 'revoked', request_id: requestId() } });
    expect([noRequestId.status, noRequestId.json['error']]).toEqual([400, 'invalid_request']);
    expect([noReason.status, noReason.json['error']]).toEqual([400, 'invalid_request']);
    expect([noReference.status, noReference.json['error']]).toEqual([400, 'invalid_mission_reference']);
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved']);
  });

  it('spec 4.2 rule 2, 5.6: the same request_id from another authenticated caller is its own request — no idempotency_conflict, no shared result', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const shared = requestId();
    const byAgent = await ps.asAgent(agent, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: shared } });
    const byPerson = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: shared } });
    expect(byAgent.status).toBe(200);
    expect(byPerson.status).toBe(200);
    expect(byPerson.json).toMatchObject({ termination_reason: 'revoked', terminated_at: byAgent.json['terminated_at'] });
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved', 'MissionTerminated', 'LateTerminationRequested']);
    // Each caller's repeat replays its own answer.
    const again = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: shared } });
    expect(again.text).toBe(byPerson.text);
  });
});

describe('spec 4.3 rule 3, 5.4, 5.9: every operation is authorized for the caller; unauthorized ≡ absent', () => {
  it('spec 4.3 rule 3, 5.9: delegation_tree and terminate by a person not owning the agent or by another agent answer exactly like an absent mission and log nothing', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const absent = createHash('sha256').update(`absent ${s256}`).digest('base64url');
    const stranger = await newAgent('aauth:researcher@agents.example');
    for (const body of [{ operation: 'delegation_tree', mission_s256: s256 }, terminate(s256, { reason: 'revoked' }).body]) {
      const missing = await ps.asPrincipal(bob, { body: { ...body, mission_s256: absent } });
      const byBob = await ps.asPrincipal(bob, { body });
      const byStranger = await ps.asAgent(stranger, { body });
      expect(byBob.status).toBe(404);
      expect(byBob.text).toBe(missing.text);
      expect(byStranger.text).toBe(missing.text);
      expect(Object.keys(byBob.headers).sort()).toEqual(Object.keys(missing.headers).sort());
    }
    expect(await types(`psmission-${s256}`)).toEqual(['MissionApproved']);
  });

  it('spec 5.4: a sub-agent of the Owning Agent (parent_agent) and another agent of the same domain get no authority: 404 like an absent mission; the mission stays active', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const subAgent = await newAgent('aauth:helper@agents.example');
    const sameDomain = await newAgent('aauth:other@agents.example');
    const bySub = await ps.asAgent(subAgent, { ...terminate(s256, { reason: 'revoked' }), claims: { parent_agent: agent.id } });
    const bySubStatus = await ps.asAgent(subAgent, { ...status(s256), claims: { parent_agent: agent.id } });
    const byDomain = await ps.asAgent(sameDomain, terminate(s256, { reason: 'revoked' }));
    for (const reply of [bySub, bySubStatus, byDomain]) expect([reply.status, reply.json['error']]).toEqual([404, 'mission_not_found']);
    expect((await ps.asAgent(agent, status(s256))).json['mission_status']).toBe('active');
  });
});

describe('spec 6: probes go to the security audit log and create no false mission record', () => {
  it('spec 6, 5.9: a status probe for an unknown reference creates no psmission stream and is recorded in security-audit as mission_probe (keyed digest only)', async () => {
    const agent = await newAgent();
    const unknown = createHash('sha256').update(`unknown ${Date.now()}`).digest('base64url');
    // Audit appends run in the background (they never delay the answer): wait for the ones in flight, not a fixed time.
    const audit = service.app.get(SecurityAudit);
    await audit.flush();
    const before = (await events(store, SECURITY_AUDIT_STREAM)).length;
    const reply = await ps.asAgent(agent, status(unknown));
    expect([reply.status, reply.json['error']]).toEqual([404, 'mission_not_found']);
    expect(await types(`psmission-${unknown}`)).toEqual([]);
    await audit.flush();
    const recorded = (await events(store, SECURITY_AUDIT_STREAM)).slice(before).filter((event) => event.data['kind'] === 'mission_probe');
    expect(recorded.map((event) => event.data['mission_ref_hmac'])).toContain(audit.missionReferenceDigest(unknown));
    expect(JSON.stringify(recorded.map(({ data, metadata }) => ({ data, metadata })))).not.toContain(unknown);
  });
});
