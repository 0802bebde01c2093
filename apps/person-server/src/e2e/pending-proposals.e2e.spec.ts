import { ASSISTANT, FILES_SERVICE, HELPER, RESEARCHER, startTenants, type FixtureAgent, type Tenants } from '../testing/multi-tenant.spec-helper.js';
import type { Reply } from '../testing/ps-http.spec-helper.js';
import type { TestKey } from '../testing/signed-request.spec-helper.js';

/**
 * ADR 0034: `POST /proposals/pending` over HTTP in the two-tenant fixture (t1: alice owns ASSISTANT, bob owns
 * RESEARCHER, ops administers; t2: carol owns HELPER, ops2 administers; FILES_SERVICE is only a t2 resource's
 * call-chain agent). Every test also asserts what the other callers must not learn.
 */
let t: Tenants;
const EMPTY = '{"proposals":[],"complete":true}';
const PATH = '/proposals/pending';

beforeAll(async () => {
  t = await startTenants('pending');
});

afterAll(async () => t.stop());

async function propose(agent: FixtureAgent, description: string): Promise<string> {
  const reply = await t.ps.signedBy(agent, { body: { description, tools: ['files.read'] } });
  expect(reply.status).toBe(202);
  return String(reply.headers['location']).split('/').pop()!;
}

const list = (key: TestKey, body: Record<string, unknown> = {}): Promise<Reply> => t.ps.asPrincipal(key, { path: PATH, body });
const ids = (reply: Reply): string[] => (reply.json['proposals'] as { pending_id: string }[]).map((entry) => entry.pending_id);

describe('ADR 0034: pending proposals, tenant-scoped', () => {
  let assistantId: string;
  let researcherId: string;
  let helperId: string;
  let filesId: string;

  beforeAll(async () => {
    assistantId = await propose(await t.ps.agent(ASSISTANT), 'Reconcile the March invoices');
    researcherId = await propose(await t.ps.agent(RESEARCHER), 'Summarise the papers');
    helperId = await propose(await t.ps.agent(HELPER), 'Tidy the shared drive');
    filesId = await propose(await t.ps.agent(FILES_SERVICE), 'A call-chain agent proposes');
  });

  it('DESIGN 3.1: a person sees the pending proposals of the agents it owns, with what it must decide on — and no one else’s', async () => {
    const alice = await list(t.alice);
    expect(alice.status).toBe(200);
    expect(alice.headers['cache-control']).toBe('no-store');
    expect(alice.json).toEqual({
      proposals: [{ pending_id: assistantId, agent: ASSISTANT, submitted_at: expect.any(String), description: 'Reconcile the March invoices', tools: ['files.read'] }],
      complete: true,
    });
    expect(ids(await list(t.bob))).toEqual([researcherId]);
    expect(ids(await list(t.carol))).toEqual([helperId]);
  });

  it('ADR 0034: an administrator sees the proposals of agents owned by persons of its tenant, not a resource’s call-chain agent nor another tenant’s', async () => {
    expect(ids(await list(t.ops)).sort()).toEqual([assistantId, researcherId].sort());
    const ops2 = await list(t.ops2);
    expect(ids(ops2)).toEqual([helperId]);
    expect(ops2.text).not.toContain(filesId);
    expect(ops2.text).not.toContain(FILES_SERVICE);
  });

  it('spec 5.9 (attacker): an agent — even the proposing one — gets exactly the answer of an empty listing', async () => {
    for (const agent of [ASSISTANT, HELPER, FILES_SERVICE]) {
      const reply = await t.ps.signedBy(await t.ps.agent(agent), { path: PATH, body: {} });
      expect([reply.status, reply.text]).toEqual([200, EMPTY]);
    }
  });

  it('spec 5.9 (attacker): another tenant’s person and administrator learn nothing of t1’s proposals', async () => {
    for (const key of [t.carol, t.ops2]) {
      const reply = await list(key);
      expect(reply.text).not.toContain(assistantId);
      expect(reply.text).not.toContain(researcherId);
      expect(reply.text).not.toContain(ASSISTANT);
    }
  });

  it('ADR 0034: an unsigned request is refused like every PS request (401)', async () => {
    const response = await fetch(`${t.service.listenUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(401);
  });
});

describe('ADR 0034: decided proposals leave the listing; paging', () => {
  it('DESIGN 3.1: an approved and a declined proposal are no longer listed', async () => {
    const t2 = await startTenants('pending-decided');
    try {
      const helper = await t2.ps.agent(HELPER);
      const first = await t2.ps.signedBy(helper, { body: { description: 'one' } });
      const second = await t2.ps.signedBy(helper, { body: { description: 'two' } });
      const [one, two] = [first, second].map((reply) => String(reply.headers['location']).split('/').pop()!);
      const before = await t2.ps.asPrincipal(t2.carol, { path: PATH, body: {} });
      expect(ids(before)).toEqual([one, two]);
      expect((await t2.ps.asPrincipal(t2.carol, { path: '/mission/approvals', body: { pending_id: one, decision: 'approve' } })).status).toBe(200);
      expect((await t2.ps.asPrincipal(t2.carol, { path: '/mission/approvals', body: { pending_id: two, decision: 'decline' } })).status).toBe(200);
      const after = await t2.ps.asPrincipal(t2.carol, { path: PATH, body: {} });
      expect(after.text).toBe(EMPTY);
    } finally {
      await t2.stop();
    }
  });

  it('ADR 0034: pages of max_results follow next_cursor to the end, in submission order, each proposal once', async () => {
    const helper = await t.ps.agent(HELPER);
    const mine = [await propose(helper, 'page a'), await propose(helper, 'page b'), await propose(helper, 'page c')];
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const reply = await list(t.carol, { max_results: 2, ...(cursor !== undefined ? { cursor } : {}) });
      expect(reply.status).toBe(200);
      seen.push(...ids(reply));
      if (reply.json['complete'] === true) {
        expect(reply.json['next_cursor']).toBeUndefined();
        break;
      }
      cursor = String(reply.json['next_cursor']);
    }
    expect(seen.filter((id) => mine.includes(id))).toEqual(mine);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('ADR 0034: a bad page size or cursor is 400 invalid_request', async () => {
    for (const body of [{ max_results: 0 }, { max_results: 201 }, { max_results: 'ten' }, { cursor: 7 }, { cursor: 'not-a-cursor' }]) {
      const reply = await list(t.carol, body);
      expect([reply.status, reply.json['error']]).toEqual([400, 'invalid_request']);
    }
  });
});
