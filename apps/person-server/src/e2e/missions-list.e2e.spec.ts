import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ASSISTANT, HELPER, RESEARCHER, stage, startTenants, type Tenants } from '../testing/multi-tenant.spec-helper.js';
import { requestId, type Reply } from '../testing/ps-http.spec-helper.js';
import { freshKey, type TestKey } from '../testing/signed-request.spec-helper.js';
import { MISSION_INDEX_FILE } from '../use-cases/list-missions/mission-index.read-model.js';

/**
 * ADR 0040: `POST /missions/list` over HTTP in the two-tenant fixture (t1: alice owns ASSISTANT, bob owns
 * RESEARCHER, ops administers; t2: carol owns HELPER, ops2 administers). Every test also asserts what the other
 * callers must not learn.
 */
let t: Tenants;
let s256: string;
let otherS256: string;
let researcherS256: string;
const EMPTY = '{"missions":[],"complete":true}';
const PATH = '/missions/list';

const list = (key: TestKey, body: Record<string, unknown> = {}): Promise<Reply> => t.ps.asPrincipal(key, { path: PATH, body });
const digests = (reply: Reply): string[] => (reply.json['missions'] as { mission_s256: string }[]).map((entry) => entry.mission_s256);

beforeAll(async () => {
  t = await startTenants('missions-list');
  ({ s256, otherS256 } = await stage(t));
  researcherS256 = await t.ps.missionOf(await t.ps.agent(RESEARCHER), t.bob);
});

afterAll(async () => t.stop());

describe('ADR 0040: the missions listing, tenant-scoped', () => {
  it('spec 5.3: a person lists the missions of the agents it owns with status, times, body and the residual of the tokens it may know', async () => {
    const reply = await list(t.alice);
    expect(reply.status).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.json['complete']).toBe(true);
    expect(reply.json['missions']).toEqual([
      {
        mission_s256: s256,
        mission_status: 'active',
        agent: ASSISTANT,
        caller_role: 'person',
        approved_at: expect.any(String),
        observed_at: expect.any(String),
        fresh_until: expect.any(String),
        description: expect.any(String),
        approved_tools: expect.any(Array),
        // Spec 2.5, ADR 0019: the root and sub-agent tokens; the call_chain token of t2's agent is not counted for t1.
        token_residual: expect.objectContaining({ tracked: 2, revocation_confirmed: 0 }),
      },
    ]);
  });

  it('spec 5.9 (attacker): another person of the same tenant, and another tenant’s person and administrator, never see it', async () => {
    expect(digests(await list(t.bob))).toEqual([researcherS256]);
    expect(digests(await list(t.carol))).toEqual([otherS256]);
    expect(digests(await list(t.ops2))).toEqual([otherS256]);
    for (const key of [t.bob, t.carol, t.ops2]) {
      const reply = await list(key, { mission_s256: s256 });
      expect([reply.status, reply.text]).toEqual([200, EMPTY]);
    }
    expect((await list(t.carol)).text).not.toContain(ASSISTANT);
  });

  it('spec 5.3: an administrator lists every mission of its tenant, and only those', async () => {
    const reply = await list(t.ops);
    expect(digests(reply).sort()).toEqual([s256, researcherS256].sort());
    expect((reply.json['missions'] as { caller_role: string }[]).every((entry) => entry.caller_role === 'admin')).toBe(true);
    expect(reply.text).not.toContain(otherS256);
    expect(reply.text).not.toContain(HELPER);
  });

  it('spec 5.9 (attacker): an agent, even the owning one, gets exactly the empty listing', async () => {
    const reply = await t.ps.signedBy(await t.ps.agent(ASSISTANT), { path: PATH, body: {} });
    expect([reply.status, reply.text]).toEqual([200, EMPTY]);
  });

  it('spec 5.1, 7 (attacker): unsigned → 401; signed by a key no principal has → 401; nothing listed', async () => {
    const unsigned = await fetch(`${t.service.listenUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await unsigned.text()).not.toContain(s256);
    const stranger = await list(await freshKey('ES256'));
    expect(stranger.status).toBe(401);
    expect(stranger.text).not.toContain(s256);
  });

  it('spec 7: a bad page size, cursor, status or digest is 400 invalid_request', async () => {
    for (const body of [{ max_results: 0 }, { max_results: 201 }, { cursor: '!!' }, { status: 'paused' }, { mission_s256: 'short' }]) {
      const reply = await list(t.alice, body);
      expect([reply.status, reply.json['error'] ?? reply.json['type']]).toEqual([400, expect.stringContaining('invalid_request')]);
    }
  });

  it('spec 4.2, 2.8: after terminate the listing shows terminated, its time and reason; status filters', async () => {
    const terminated = await t.ps.asPrincipal(t.alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'completed', request_id: requestId() } });
    expect(terminated.status).toBe(200);
    const [entry] = (await list(t.alice, { mission_s256: s256 })).json['missions'] as Record<string, unknown>[];
    expect(entry).toMatchObject({ mission_status: 'terminated', termination_reason: 'completed', terminated_at: terminated.json['terminated_at'] });
    expect(digests(await list(t.ops, { status: 'active' }))).toEqual([researcherS256]);
    expect(digests(await list(t.ops, { status: 'terminated' }))).toEqual([s256]);
  });

  it('ADR 0040: pages of max_results follow next_cursor, newest first, each mission once', async () => {
    const first = await list(t.ops, { max_results: 1 });
    expect(first.json['complete']).toBe(false);
    const second = await list(t.ops, { max_results: 1, cursor: String(first.json['next_cursor']) });
    expect(second.json['complete']).toBe(true);
    expect([...digests(first), ...digests(second)]).toEqual([researcherS256, s256]);
  });
});

describe('ADR 0087: the index is a file of its own under DATA_DIR, resumed after a restart', () => {
  it('a restart lists the same missions; with the file deleted while stopped, it is rebuilt from the store', async () => {
    const before = await list(t.ops);
    expect(before.status).toBe(200);
    expect(digests(before)).toEqual(expect.arrayContaining([s256, researcherS256]));
    const file = join(t.dataDir, MISSION_INDEX_FILE);
    expect(existsSync(file)).toBe(true);
    await t.restart();
    expect(digests(await list(t.ops))).toEqual(digests(before));
    await t.restart(() => rmSync(file));
    expect(existsSync(file)).toBe(true);
    expect(digests(await list(t.ops))).toEqual(digests(before));
    expect(digests(await list(t.carol))).toEqual([otherS256]);
  }, 60_000);
});
