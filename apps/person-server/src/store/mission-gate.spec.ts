import type { EventStore, ReadStreamOptions } from '@mission/event-store';
import { MissionNotFoundError } from '@mission/ps-domain';
import { KnownApprovals } from './known-approvals.js';
import { authorizeFromApproval, expiryDue } from './mission-gate.js';

const S256 = 'ZXhhbXBsZS1taXNzaW9uLWJsb2ItZGlnZXN0LTAwMDA';
const OWNER = 'aauth:assistant@agents.example';

/** A store whose psmission stream has a long history; it records how it was read. */
function storeWith(history: { type: string; data: Record<string, unknown> }[]): { store: EventStore; reads: Array<ReadStreamOptions & { name: string }>; delivered: () => number } {
  const reads: Array<ReadStreamOptions & { name: string }> = [];
  let delivered = 0;
  const store = {
    async *readStream(name: string, options?: ReadStreamOptions) {
      reads.push({ name, ...options });
      for (const event of (name === 'security-audit' ? [] : history).slice(0, options?.maxCount ?? history.length)) {
        delivered++;
        yield event;
      }
    },
  } as unknown as EventStore;
  return { store, reads, delivered: () => delivered };
}

const approved = { type: 'MissionApproved', data: { agent: OWNER, tenant: 't1' } };
const busy = [approved, ...Array.from({ length: 1_000 }, () => ({ type: 'MissionStatusRead', data: {} }))];

describe('spec 5.9 anti-oracle timing: absent and not authorized are decided from one event', () => {
  it('reads only the first event of a long history, for the owner and for a stranger alike', async () => {
    const owner = storeWith(busy);
    await authorizeFromApproval(owner.store, S256, { role: 'agent', id: OWNER });
    const stranger = storeWith(busy);
    await expect(authorizeFromApproval(stranger.store, S256, { role: 'agent', id: 'aauth:other@agents.example' })).rejects.toEqual(new MissionNotFoundError('not_authorized'));
    expect([owner.delivered(), stranger.delivered()]).toEqual([1, 1]);
    expect(stranger.reads).toEqual([{ name: `psmission-${S256}`, maxCount: 1 }]);
  });

  it('an absent mission is the same refusal after the same single-event read (of the security audit stream instead, so the work matches)', async () => {
    const absent = storeWith([]);
    const error = await authorizeFromApproval(absent.store, S256, { role: 'agent', id: OWNER }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissionNotFoundError);
    expect((error as MissionNotFoundError).auditDetail).toBe('absent');
    expect(absent.reads).toEqual([
      { name: `psmission-${S256}`, maxCount: 1 },
      { name: 'security-audit', maxCount: 1 },
    ]);
  });

  it('persons and administrators: tenant and ownership come from MissionApproved', async () => {
    const { store } = storeWith(busy);
    await authorizeFromApproval(store, S256, { role: 'person', id: 'alice', tenant: 't1', ownedAgents: [OWNER] });
    await authorizeFromApproval(store, S256, { role: 'admin', id: 'ops', tenant: 't1' });
    await expect(authorizeFromApproval(store, S256, { role: 'admin', id: 'ops2', tenant: 't2' })).rejects.toBeInstanceOf(MissionNotFoundError);
    await expect(authorizeFromApproval(store, S256, { role: 'person', id: 'bob', tenant: 't1', ownedAgents: ['aauth:x@agents.example'] })).rejects.toBeInstanceOf(MissionNotFoundError);
  });

  it('spec 3, 2.8: an authorized caller learns the blob\'s expires_at from the same event — whether a decision now records the expiry first', async () => {
    const expiring = storeWith([{ type: 'MissionApproved', data: { agent: OWNER, tenant: 't1', expires_at: '2026-11-22T10:00:00.000Z' } }]);
    const facts = await authorizeFromApproval(expiring.store, S256, { role: 'agent', id: OWNER });
    expect(facts).toEqual({ role: 'agent', agent: OWNER, tenant: 't1', expiresAt: new Date('2026-11-22T10:00:00.000Z') });
    expect([expiryDue(facts, new Date('2026-11-22T09:59:59.999Z')), expiryDue(facts, new Date('2026-11-22T10:00:00.000Z'))]).toEqual([false, true]);
    expect(await authorizeFromApproval(storeWith(busy).store, S256, { role: 'agent', id: OWNER })).toEqual({ role: 'agent', agent: OWNER, tenant: 't1' });
    expect(expiryDue({}, new Date('2100-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('issue 15: approvals remembered for authorized callers (known-approvals.ts)', () => {
  const OTHER_S256 = 'b3RoZXItbWlzc2lvbi1ibG9iLWRpZ2VzdC0wMDAwMDA';
  const stranger = { role: 'agent', id: 'aauth:other@agents.example' } as const;

  it('the owner\'s next status is authorized without reading the first event again', async () => {
    const known = new KnownApprovals();
    const history = storeWith(busy);
    const first = await authorizeFromApproval(history.store, S256, { role: 'agent', id: OWNER }, known);
    const again = await authorizeFromApproval(history.store, S256, { role: 'agent', id: OWNER }, known);
    expect(again).toEqual(first);
    expect(history.reads).toHaveLength(1);
  });

  it('spec 5.9: a remembered approval never answers another agent or another tenant — they get the same refusal after the same one-event read as before', async () => {
    const known = new KnownApprovals();
    const history = storeWith(busy);
    await authorizeFromApproval(history.store, S256, { role: 'agent', id: OWNER }, known);
    const probes = [stranger, { role: 'person', id: 'mallory', tenant: 't2', ownedAgents: [OWNER] }, { role: 'admin', id: 'ops2', tenant: 't2' }] as const;
    for (const caller of probes) {
      const probe = storeWith(busy);
      await expect(authorizeFromApproval(probe.store, S256, caller, known)).rejects.toEqual(new MissionNotFoundError('not_authorized'));
      expect(probe.reads).toEqual([{ name: `psmission-${S256}`, maxCount: 1 }]);
    }
  });

  it('spec 5.9: an entry is bound to its mission — another reference is still read (absent stays absent, with its decoy read)', async () => {
    const known = new KnownApprovals();
    await authorizeFromApproval(storeWith(busy).store, S256, { role: 'agent', id: OWNER }, known);
    const absent = storeWith([]);
    const error = await authorizeFromApproval(absent.store, OTHER_S256, { role: 'agent', id: OWNER }, known).catch((caught: unknown) => caught);
    expect((error as MissionNotFoundError).auditDetail).toBe('absent');
    expect(absent.reads.map((read) => read.name)).toEqual([`psmission-${OTHER_S256}`, 'security-audit']);
  });

  it('an unauthorized probe is never remembered, and the cache is bounded (least recently used first)', async () => {
    const known = new KnownApprovals(2);
    await expect(authorizeFromApproval(storeWith(busy).store, S256, stranger, known)).rejects.toBeInstanceOf(MissionNotFoundError);
    expect(known.size).toBe(0);
    for (const s256 of [S256, OTHER_S256, 'dGhpcmQtbWlzc2lvbi1ibG9iLWRpZ2VzdC0wMDAwMDA']) await authorizeFromApproval(storeWith(busy).store, s256, { role: 'agent', id: OWNER }, known);
    expect(known.size).toBe(2);
    expect(known.authorize(S256, { role: 'agent', id: OWNER })).toBeUndefined();
  });
});
