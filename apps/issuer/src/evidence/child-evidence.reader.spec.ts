import type { EventStore, ReadStreamOptions, RecordedEvent } from '@mission/event-store';
import { childEvidenceStreamName, missionIdFromBytes, missionStreamName, type ChildEvidence } from '@mission/issuer-domain';
import { InvalidRequestError } from '@mission/issuer-oauth';
import { readChildEvidence } from './child-evidence.reader.js';

const PARENT = missionIdFromBytes(new Uint8Array(16).fill(4));
const OTHER = missionIdFromBytes(new Uint8Array(16).fill(5));

/** Just enough of a store: streams as arrays, read forwards from a revision with a count. */
function fakeStore(streams: Record<string, { type: string; data: Record<string, unknown> }[]>): Pick<EventStore, 'readStream'> {
  return {
    async *readStream(name: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
      const from = typeof options.fromRevision === 'bigint' ? Number(options.fromRevision) : 0;
      const events = (streams[name] ?? []).slice(from, options.maxCount === undefined ? undefined : from + options.maxCount);
      for (const [i, event] of events.entries()) {
        const revision = BigInt(from + i);
        yield { streamName: name, revision, position: { commit: revision, prepare: revision }, id: `${name}-${revision}`, type: event.type, data: event.data as never, metadata: {}, created: new Date() };
      }
    },
  };
}

const minute = (n: number): string => new Date(Date.UTC(2026, 10, 22, 9, n)).toISOString();
const evidence = (id: string, decision: 'created' | 'denied', createdAt: string): ChildEvidence => ({
  evidence_id: id, parent: { id: PARENT, issuer: 'https://issuer.example', authority_hash: 'sha-256:x' }, child_actor: { sub: 'demo-subagent' },
  requested_by: 'demo-agent', attenuation: { result: 'not_evaluated', checks: [] }, cascade_mode: 'immediate', decision,
  ...(decision === 'denied' ? { denial_reason: 'fanout_exceeded' as const } : {}), created_at: createdAt,
});
const attached = (id: string, at: string) => ({ type: 'ChildMissionAttached', data: { evidence: evidence(id, 'created', at) } });
const denied = (id: string, at: string) => ({ type: 'ChildCreationDenied', data: { parent_mission_id: PARENT, evidence: evidence(id, 'denied', at) } });
const other = (type: string) => ({ type, data: { state: 'suspended' } });

describe('readChildEvidence (DESIGN 2.1 /missions/evidence, spec 2.6, 5 rule 7)', () => {
  const store = fakeStore({
    [missionStreamName(PARENT)]: [{ type: 'MissionCreated', data: {} }, attached('c1', minute(1)), other('MissionSuspended'), attached('c3', minute(3)), other('MissionResumed'), attached('c4', minute(4))],
    [childEvidenceStreamName(PARENT)]: [denied('d2', minute(2)), denied('d4', minute(4)), denied('d5', minute(5))],
  });

  it('spec 2.6: merges created (parent stream) and denied (evidence-<parent> stream) records in created_at order, the parent stream first on a tie', async () => {
    const page = await readChildEvidence(store, PARENT, { maxResults: 100 });
    expect(page.evidence.map((record) => record.evidence_id)).toEqual(['c1', 'd2', 'c3', 'c4', 'd4', 'd5']);
    expect(page.evidence.map((record) => record.decision)).toEqual(['created', 'denied', 'created', 'created', 'denied', 'denied']);
    expect(page.nextCursor).toBeUndefined();
  });

  it('pages with an opaque cursor: every record exactly once, in the same order', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await readChildEvidence(store, PARENT, { maxResults: 2, ...(cursor !== undefined ? { cursor } : {}) });
      ids.push(...page.evidence.map((record) => record.evidence_id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(ids).toEqual(['c1', 'd2', 'c3', 'c4', 'd4', 'd5']);
    expect(pages).toBe(3);
  });

  it('reads long streams in chunks', async () => {
    const many = Array.from({ length: 600 }, (_, i) => attached(`c${i}`, new Date(Date.UTC(2026, 10, 22, 9, 0, 0, i)).toISOString()));
    const big = fakeStore({ [missionStreamName(PARENT)]: [other('MissionSuspended'), ...many] });
    const first = await readChildEvidence(big, PARENT, { maxResults: 500 });
    expect(first.evidence).toHaveLength(500);
    const second = await readChildEvidence(big, PARENT, { maxResults: 500, cursor: first.nextCursor! });
    expect(second.evidence.map((record) => record.evidence_id)).toEqual(many.slice(500).map((event) => event.data.evidence.evidence_id));
    expect(second.nextCursor).toBeUndefined();
  });

  it('answers a mission without creations with no records', async () => {
    expect(await readChildEvidence(store, OTHER, { maxResults: 10 })).toEqual({ evidence: [] });
  });

  it.each([
    ['garbage', '!!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a cursor of another mission', Buffer.from(JSON.stringify({ m: OTHER, c: '1', d: '0' })).toString('base64url')],
    ['a negative revision', Buffer.from(JSON.stringify({ m: PARENT, c: '-1', d: '0' })).toString('base64url')],
    ['an extra member', Buffer.from(JSON.stringify({ m: PARENT, c: '1', d: '0', x: 1 })).toString('base64url')],
    ['an array', Buffer.from('[]').toString('base64url')],
  ])('refuses %s as cursor with invalid_request', async (_, cursor) => {
    await expect(readChildEvidence(store, PARENT, { maxResults: 10, cursor })).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
