import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobStreamName } from '@mission/ps-domain';
import { requestId } from '../testing/ps-http.spec-helper.js';
import { ASSISTANT, startTenants, type Tenants } from '../testing/multi-tenant.spec-helper.js';
import { testBaseUrl } from '../testing/run-person-server.js';

/**
 * Issue 12 defect 4, spec 3 rule 5 and spec 1 item 7 (ADR 0019): deleting a mission body deletes its content —
 * from every stream of the store and from the embedded store's file.
 */
let t: Tenants;

beforeAll(async () => {
  t = await startTenants('erasure');
});

afterAll(async () => t.stop());

/** The streams whose events (data or metadata) contain `needle`, scanning the whole store ($all). */
async function streamsHolding(needles: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for await (const event of t.store.readAll()) {
    const text = JSON.stringify({ data: event.data, metadata: event.metadata });
    if (needles.some((needle) => text.includes(needle))) found.add(event.streamName);
  }
  return [...found].sort();
}

function storeFileBytes(): Buffer {
  const path = join(t.dataDir, 'events.sqlite');
  return Buffer.concat([path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)));
}

describe('spec 3 rule 5, 1 item 7: a deleted mission body leaves no content behind (issue 12 defect 4)', () => {
  it('spec 3 rule 5: the content lives only in psblob-<s256>; after deletion no event of any stream and no byte of the store file holds it, and the tombstone still answers', async () => {
    const marker = randomBytes(8).toString('hex');
    const description = `Move the payroll reserve ${marker}`;
    const tool = `payroll.transfer.${marker}`;
    const resource = `https://bank.example/accounts/${marker}`;
    const agent = await t.ps.agent(ASSISTANT);
    const proposed = await t.ps.signedBy(agent, { body: { description, tools: [tool], resources: [resource], expires_at: new Date(Date.now() + 3_600_000).toISOString() } });
    const location = String(proposed.headers['location']);
    const pendingId = location.split('/').pop()!;
    expect((await t.ps.asPrincipal(t.alice, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'approve' } })).status).toBe(200);
    const polled = await t.ps.signedBy(agent, { path: location.slice(testBaseUrl.length) });
    const s256 = String(polled.json['s256']);
    const blob = String(polled.json['mission']);
    const blobText = Buffer.from(blob, 'base64url').toString('utf8');
    const needles = [marker, blob, blobText];

    // Before deletion: only the body stream holds the content (not the proposal stream, not the mission log).
    expect(await streamsHolding(needles)).toEqual([blobStreamName(s256)]);

    expect((await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(s256) })).status).toBe(200);
    const deletion = { path: '/mission/blob-deletions', body: { mission_s256: s256, request_id: requestId(), purpose: 'retention: body no longer needed' } };
    // The other tenant's administrator and t1's person may not delete it.
    expect((await t.ps.asPrincipal(t.ops2, deletion)).status).toBe(404);
    expect((await t.ps.asPrincipal(t.alice, deletion)).status).toBe(403);
    expect((await t.ps.asPrincipal(t.ops, deletion)).status).toBe(200);

    expect(await streamsHolding(needles)).toEqual([]);
    const bytes = storeFileBytes();
    expect(bytes.includes(marker)).toBe(false);
    expect(bytes.includes(blob)).toBe(false);
    // The tombstone: terminated with its first reason, the expiry and s256 kept; the poll never rebuilds the body.
    const status = await t.ps.asPrincipal(t.ops, { body: { operation: 'status', mission_s256: s256 } });
    expect(status.json).toMatchObject({ mission_s256: s256, mission_status: 'terminated', termination_reason: 'revoked', expires_at: expect.any(String) });
    const again = await t.ps.signedBy(agent, { path: location.slice(testBaseUrl.length) });
    expect([again.status, again.json['error']]).toEqual([403, 'mission_terminated']);
    expect(await streamsHolding(needles)).toEqual([]);
  });

  it('spec 1 item 7: a declined proposal keeps no content either', async () => {
    const marker = randomBytes(8).toString('hex');
    const agent = await t.ps.agent(ASSISTANT);
    const proposed = await t.ps.signedBy(agent, { body: { description: `Declined work ${marker}` } });
    const pendingId = String(proposed.headers['location']).split('/').pop()!;
    expect(await streamsHolding([marker])).toEqual([`psproposalbody-${pendingId}`]);
    expect((await t.ps.asPrincipal(t.alice, { path: '/mission/approvals', body: { pending_id: pendingId, decision: 'decline' } })).status).toBe(200);
    expect(await streamsHolding([marker])).toEqual([]);
  });
});
