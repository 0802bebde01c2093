import { missionStreamName } from '@mission/ps-domain';
import { requestId } from '../testing/ps-http.spec-helper.js';
import { PROBE_FAILURES_PER_MINUTE } from '../abuse/probe-limiter.js';
import { ASSISTANT, auditLength, auditSince, FILES_SERVICE, HELPER, RESEARCHER, stage, startTenants, streamEvents, SUB_AGENT, type Tenants } from '../testing/multi-tenant.spec-helper.js';

/**
 * Issue 12 defects 3, 5, 6 over HTTP in the two-provider, two-tenant fixture (multi-tenant.spec-helper.ts):
 * every test also asserts what each other caller must not see or do.
 */
let t: Tenants;
let staged: Awaited<ReturnType<typeof stage>>;

beforeAll(async () => {
  t = await startTenants('tenants');
  staged = await stage(t);
});

afterAll(async () => t.stop());

const tree = (s256: string) => ({ operation: 'delegation_tree', mission_s256: s256 });
const logTypes = async (s256: string): Promise<string[]> => (await streamEvents(t.store, missionStreamName(s256))).map((event) => event.type);

describe('spec 4.3 rule 3, 2.5: the delegation tree never leaks another tenant (issue 12 defect 3, ADR 0019)', () => {
  it('spec 4.3 rule 3: t1’s person and administrator see the root and the sub-agent — not the other tenant’s call-chain node, its agent or its token', async () => {
    for (const key of [t.alice, t.ops]) {
      const reply = await t.ps.asPrincipal(key, { body: tree(staged.s256) });
      expect(reply.status).toBe(200);
      expect(reply.json['nodes']).toEqual([
        { agent: ASSISTANT, relationship: 'root', tokens: [{ iss: expect.any(String), jti: staged.rootJti }] },
        { agent: SUB_AGENT, relationship: 'sub_agent', parent_agent: ASSISTANT, tokens: [{ iss: expect.any(String), jti: staged.subJti }] },
      ]);
      expect(reply.text).not.toContain(FILES_SERVICE);
      expect(reply.text).not.toContain(staged.foreignJti);
      expect(reply.text).not.toContain('agents.other');
    }
  });

  it('spec 4.3 rule 3, 2.7: the Owning Agent sees its own tokens only, and no other tenant’s node either', async () => {
    const reply = await t.ps.signedBy(await t.ps.agent(ASSISTANT), { body: tree(staged.s256) });
    expect(reply.json['nodes']).toEqual([
      { agent: ASSISTANT, relationship: 'root', tokens: [{ iss: expect.any(String), jti: staged.rootJti }] },
      { agent: SUB_AGENT, relationship: 'sub_agent', parent_agent: ASSISTANT },
    ]);
    expect(reply.text).not.toContain(FILES_SERVICE);
  });

  it('spec 5.9, 4.3 rule 3: t2’s person and administrator, t1’s person not owning the agent, the sub-agent, the resource’s agent and another provider’s agent get mission_not_found', async () => {
    const others = [
      await t.ps.asPrincipal(t.carol, { body: tree(staged.s256) }),
      await t.ps.asPrincipal(t.ops2, { body: tree(staged.s256) }),
      await t.ps.asPrincipal(t.bob, { body: tree(staged.s256) }),
      await t.ps.signedBy(await t.ps.agent(SUB_AGENT), { body: tree(staged.s256) }),
      await t.ps.signedBy(await t.ps.agent(FILES_SERVICE), { body: tree(staged.s256) }),
      await t.ps.signedBy(await t.ps.agent(HELPER), { body: tree(staged.s256) }),
      await t.ps.signedBy(await t.ps.agent(RESEARCHER), { body: tree(staged.s256) }),
    ];
    for (const reply of others) expect([reply.status, reply.json['error']]).toEqual([404, 'mission_not_found']);
    // And t1's callers cannot see t2's mission.
    for (const key of [t.alice, t.ops]) expect((await t.ps.asPrincipal(key, { body: tree(staged.otherS256) })).status).toBe(404);
  });

  it('spec 2.5: token_residual.tracked counts only the tokens the caller may know about (root and sub-agent, not the other tenant’s)', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    const root = await t.ps.authToken(assistant, s256);
    await t.ps.authToken(assistant, s256, { subAgent: await t.ps.agent(SUB_AGENT) });
    expect((await t.ps.authToken(await t.ps.agent(FILES_SERVICE), s256, { upstreamToken: String(root.json['auth_token']) })).status).toBe(200);
    const reply = await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(s256) });
    expect(reply.status).toBe(200);
    expect((reply.json['token_residual'] as Record<string, unknown>)['tracked']).toBe(2);
  });
});

describe('spec 4.2 rule 1, 5.9: the superseded replacement is no existence oracle (issue 12 defect 5)', () => {
  it('spec 4.2 rule 1: the role is checked first — an Owning Agent asking superseded gets invalid_termination_reason and no replacement is looked up', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    const before = await auditLength(t);
    const reply = await t.ps.signedBy(assistant, { body: t.ps.terminateBody(s256, { reason: 'superseded', replacement_s256: staged.otherS256 }) });
    expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_termination_reason']);
    expect((await auditSince(t, before)).map((event) => event['kind'])).not.toContain('replacement_probe');
  });

  it('spec 5.9: a foreign and an absent replacement give the same invalid_request, are security-logged with the keyed digest only, and count against the failed-lookup allowance', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    const absent = 'A'.repeat(42) + 'w';
    const before = await auditLength(t);
    const foreign = await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(s256, { reason: 'superseded', replacement_s256: staged.otherS256 }) });
    const missing = await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(s256, { reason: 'superseded', replacement_s256: absent }) });
    expect([foreign.status, foreign.json]).toEqual([missing.status, missing.json]);
    expect(foreign.json['error']).toBe('invalid_request');
    const probes = (await auditSince(t, before)).filter((event) => event['kind'] === 'replacement_probe');
    expect(probes.map((event) => event['reason'])).toEqual(['not_authorized', 'absent']);
    expect(JSON.stringify(probes)).not.toContain(staged.otherS256);
    expect(probes.every((event) => typeof event['mission_ref_hmac'] === 'string')).toBe(true);
    // The mission stays active.
    expect((await t.ps.asPrincipal(t.alice, { body: { operation: 'status', mission_s256: s256 } })).json['mission_status']).toBe('active');
  });
});

describe('spec 6, 5.5: refused management requests leave a trace (issue 12 defect 6, ADR 0018)', () => {
  it.each([
    ['an Owning Agent asking for administrative', 'agent', { reason: 'administrative' }, 'invalid_termination_reason'],
    ['an Owning Agent asking for completed', 'agent', { reason: 'completed' }, 'invalid_termination_reason'],
    ['an administrator without purpose', 'ops', { reason: 'administrative' }, 'invalid_request'],
    ['a person with an invalid replacement', 'alice', { reason: 'superseded', replacement_s256: 'B'.repeat(42) + 'w' }, 'invalid_request'],
  ] as const)('spec 6: %s → ManagementRequestRefused on the mission log (deny) and management_refused in the security audit; the mission stays active', async (_, who, change, error) => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    const before = await auditLength(t);
    const body = t.ps.terminateBody(s256, change);
    const reply = who === 'agent' ? await t.ps.signedBy(assistant, { body }) : await t.ps.asPrincipal(who === 'ops' ? t.ops : t.alice, { body });
    expect([reply.status, reply.json['error']]).toEqual([400, error]);
    const log = await streamEvents(t.store, missionStreamName(s256));
    const refused = log.filter((event) => event.type === 'ManagementRequestRefused');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({ operation: 'terminate', error, request_id: body['request_id'], requested_reason: change.reason, authorization: { decision: 'deny' } });
    expect(log.map((event) => event.type)).not.toContain('MissionTerminated');
    const audit = await auditSince(t, before);
    expect(audit.filter((event) => event['kind'] === 'management_refused').map((event) => event['reason'])).toEqual([error]);
  });

  it('spec 6, 4.2 rule 2: an idempotency conflict is logged on the mission it named, which stays untouched', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const first = await t.ps.missionOf(assistant, t.alice);
    const second = await t.ps.missionOf(assistant, t.alice);
    const shared = requestId();
    expect((await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(first, { request_id: shared }) })).status).toBe(200);
    const before = await auditLength(t);
    const conflict = await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(second, { request_id: shared }) });
    expect([conflict.status, conflict.json['error']]).toEqual([409, 'idempotency_conflict']);
    expect(await logTypes(second)).toEqual(['MissionApproved', 'ManagementRequestRefused']);
    expect((await auditSince(t, before)).map((event) => [event['kind'], event['reason']])).toContainEqual(['management_refused', 'idempotency_conflict']);
  });

  it('spec 6, 5.9: an unauthorized caller (the other tenant, another provider’s agent) leaves no mission record — only the security audit', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    const before = await auditLength(t);
    const replies = [
      await t.ps.asPrincipal(t.ops2, { body: t.ps.terminateBody(s256, { reason: 'administrative', purpose: 'cross-tenant' }) }),
      await t.ps.asPrincipal(t.carol, { body: t.ps.terminateBody(s256) }),
      await t.ps.signedBy(await t.ps.agent(HELPER), { body: t.ps.terminateBody(s256, { reason: 'administrative' }) }),
    ];
    for (const reply of replies) expect(reply.status).toBe(404);
    expect(await logTypes(s256)).toEqual(['MissionApproved']);
    expect((await auditSince(t, before)).filter((event) => event['kind'] === 'mission_probe')).toHaveLength(3);
  });
});

describe('spec 5.9, 8: the failed-lookup allowance (last: it blocks the administrator ops)', () => {
  it('spec 5.9, 8: replacement probes exhaust the same allowance as unknown references: then 429 before any lookup', async () => {
    const assistant = await t.ps.agent(ASSISTANT);
    const s256 = await t.ps.missionOf(assistant, t.alice);
    let last = 0;
    for (let attempt = 0; attempt <= 2 * PROBE_FAILURES_PER_MINUTE && last !== 429; attempt++) {
      last = (await t.ps.asPrincipal(t.ops, { body: t.ps.terminateBody(s256, { reason: 'superseded', purpose: 'probe', replacement_s256: staged.otherS256 }) })).status;
    }
    expect(last).toBe(429);
    // Blocked for every reference now, its own included (the limit is no oracle).
    expect((await t.ps.asPrincipal(t.ops, { body: { operation: 'status', mission_s256: s256 } })).status).toBe(429);
  });
});
