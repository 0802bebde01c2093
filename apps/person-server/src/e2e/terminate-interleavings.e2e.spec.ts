import { blobStreamName, missionStreamName } from '@mission/ps-domain';
import { eventually, requestId, type Reply } from '../testing/ps-http.spec-helper.js';
import { ASSISTANT, startTenants, streamEvents, type Tenants } from '../testing/multi-tenant.spec-helper.js';
import type { TerminationStep } from '../use-cases/terminate-mission/termination-gates.js';

/**
 * Issue 12 defect 2, spec 4.2 rule 2 and spec 3 rule 2: deterministic interleavings of `terminate` (ADR 0017).
 * A request is held by a gate between two of its steps (TerminationGates) while another request runs to the end;
 * then the held one is released. No timers decide the order.
 */
let t: Tenants;

beforeAll(async () => {
  t = await startTenants('interleavings');
});

afterAll(async () => t.stop());

const STEPS: TerminationStep[] = ['claimed', 'committed', 'answering'];

async function mission(expiresAt?: string): Promise<string> {
  return t.ps.missionOf(await t.ps.agent(ASSISTANT), t.alice, expiresAt);
}

const terminate = (body: Record<string, unknown>): Promise<Reply> => t.ps.asPrincipal(t.alice, { body });
const status = async (s256: string): Promise<unknown> => (await t.ps.asPrincipal(t.alice, { body: { operation: 'status', mission_s256: s256 } })).json['mission_status'];
const logTypes = async (s256: string): Promise<string[]> => (await streamEvents(t.store, missionStreamName(s256))).map((event) => event.type);

/** Releases of requests still held when a test failed early, so that none is left hanging at shutdown. */
const pending: (() => void)[] = [];
afterEach(() => pending.splice(0).forEach((release) => release()));

/** Sends `body`, holding it at `step`; resolves once it is held there. */
async function heldAt(step: TerminationStep, body: Record<string, unknown>): Promise<{ release(): Promise<Reply> }> {
  const gate = t.gates.hold(step);
  const reply = terminate(body);
  // A test that fails before release must not leave an unhandled rejection behind.
  reply.catch(() => undefined);
  pending.push(gate.release);
  await gate.reached;
  return {
    release: async () => {
      gate.release();
      return reply;
    },
  };
}

describe('terminate × terminate (spec 4.2 rule 2: at most one content commits under (caller, request_id))', () => {
  it.each(STEPS)('spec 4.2 rule 2: A(M1, X) held after "%s"; B(M2, X) → 409 idempotency_conflict with M2 untouched; A completes and its identical repeat returns A’s bytes', async (step) => {
    const [m1, m2] = [await mission(), await mission()];
    const x = requestId();
    const a = await heldAt(step, t.ps.terminateBody(m1, { request_id: x }));
    const b = await terminate(t.ps.terminateBody(m2, { request_id: x }));
    expect([b.status, b.json['error']]).toEqual([409, 'idempotency_conflict']);
    expect(await status(m2)).toBe('active');
    expect(await logTypes(m2)).not.toContain('MissionTerminated');
    const first = await a.release();
    expect(first.status).toBe(200);
    expect(first.json['mission_s256']).toBe(m1);
    const repeat = await terminate(t.ps.terminateBody(m1, { request_id: x }));
    expect([repeat.status, repeat.text]).toEqual([200, first.text]);
    expect((await terminate(t.ps.terminateBody(m2, { request_id: x }))).status).toBe(409);
    expect(await status(m2)).toBe('active');
    // The other tenant's administrator may not even learn that M1 exists.
    expect((await t.ps.asPrincipal(t.ops2, { body: { operation: 'status', mission_s256: m1 } })).status).toBe(404);
  });

  it('spec 4.2 rule 2: the same mission and request_id with other content (another reason) while A is in flight → 409; only A’s termination is logged', async () => {
    const m = await mission();
    const x = requestId();
    const a = await heldAt('claimed', t.ps.terminateBody(m, { request_id: x }));
    const b = await terminate(t.ps.terminateBody(m, { request_id: x, reason: 'completed' }));
    expect(b.status).toBe(409);
    expect((await a.release()).json['termination_reason']).toBe('revoked');
    const log = await streamEvents(t.store, missionStreamName(m));
    expect(log.filter((event) => event.type === 'MissionTerminated').map((event) => event.data['reason'])).toEqual(['revoked']);
    expect(log.map((event) => event.type)).not.toContain('LateTerminationRequested');
  });

  it('spec 3 rule 2: two request_ids on one mission — the first committed transition wins, the other gets the existing terminal status', async () => {
    const m = await mission();
    const a = await heldAt('claimed', t.ps.terminateBody(m));
    const b = await terminate(t.ps.terminateBody(m, { reason: 'completed' }));
    expect(b.json['termination_reason']).toBe('completed');
    expect((await a.release()).json['termination_reason']).toBe('completed');
    expect((await logTypes(m)).filter((type) => type === 'MissionTerminated' || type === 'LateTerminationRequested')).toEqual(['MissionTerminated', 'LateTerminationRequested']);
  });
});

describe('terminate × identical repeat (spec 4.2 rule 2: the original result, no second lifecycle event)', () => {
  it.each(STEPS)('spec 4.2 rule 2: A held after "%s"; an identical repeat completes or replays it; both answers are the same bytes and one MissionTerminated is logged', async (step) => {
    const m = await mission();
    const body = t.ps.terminateBody(m);
    const a = await heldAt(step, body);
    const repeat = await terminate(body);
    expect(repeat.status).toBe(200);
    const first = await a.release();
    expect([first.status, first.text]).toEqual([200, repeat.text]);
    const types = await logTypes(m);
    expect(types.filter((type) => type === 'MissionTerminated')).toHaveLength(1);
    expect(types).not.toContain('LateTerminationRequested');
  });
});

describe('terminate × expiry (spec 3 rule 2: first committed transition wins; the loser observes an idempotent outcome)', () => {
  it('spec 3 rule 2, 4.2 rule 2: the expiry commits while A is held after its claim → A answers expired; its repeat returns the same bytes', async () => {
    // A 4 s lead, as the other expiry tests: approval refuses an expires_at already past, and the proposal and approval
    // come first.
    const m = await mission(new Date(Date.now() + 4_000).toISOString());
    const body = t.ps.terminateBody(m);
    const a = await heldAt('claimed', body);
    // The expiry process manager records the expiry (attributed to the PS scheduler) while A is held.
    await eventually(async () => (await logTypes(m)).includes('MissionTerminated'), 20_000);
    const answer = await a.release();
    expect([answer.status, answer.json['termination_reason']]).toEqual([200, 'expired']);
    expect((await terminate(body)).text).toBe(answer.text);
    const log = await streamEvents(t.store, missionStreamName(m));
    expect(log.filter((event) => event.type === 'MissionTerminated').map((event) => [event.data['reason'], (event.data['actor'] as { id: string }).id])).toEqual([['expired', 'ps-scheduler']]);
    expect(log.filter((event) => event.type === 'LateTerminationRequested')).toHaveLength(1);
  });
});

describe('terminate × blob deletion (spec 3 rule 5)', () => {
  const deletion = (s256: string) => ({ path: '/mission/blob-deletions', body: { mission_s256: s256, request_id: requestId(), purpose: 'retention: body no longer needed' } });

  it('spec 3 rule 5, 4.2 rule 2: the body is deleted between A’s commit and its answer → A still answers, its repeat returns the same bytes, the tombstone stays terminated', async () => {
    const m = await mission();
    const body = t.ps.terminateBody(m);
    const a = await heldAt('committed', body);
    expect((await t.ps.asPrincipal(t.ops, deletion(m))).status).toBe(200);
    // The other tenant's administrator cannot delete it (absent ≡ not authorized).
    expect((await t.ps.asPrincipal(t.ops2, deletion(m))).status).toBe(404);
    const answer = await a.release();
    expect(answer.status).toBe(200);
    expect((await terminate(body)).text).toBe(answer.text);
    expect(await status(m)).toBe('terminated');
    expect(await streamEvents(t.store, blobStreamName(m))).toEqual([]);
  });

  it('spec 3 rule 5: while A holds its claim the mission is still active, so deletion is refused; after A the deletion succeeds', async () => {
    const m = await mission();
    const a = await heldAt('claimed', t.ps.terminateBody(m));
    expect((await t.ps.asPrincipal(t.ops, deletion(m))).status).toBe(409);
    expect((await a.release()).status).toBe(200);
    expect((await t.ps.asPrincipal(t.ops, deletion(m))).status).toBe(200);
  });
});
