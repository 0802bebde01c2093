import { rmSync } from 'node:fs';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { requestId } from '../../../apps/person-server/src/testing/ps-http.spec-helper.js';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { stage, startTenants, type Tenants } from '../../../apps/person-server/src/testing/multi-tenant.spec-helper.js';
import { audit, copyDataDir, StoreSurgery } from './testing/tamper.spec-helper.js';

/** Issue 14: `mission-audit` on a copy of a real Person Server store: tokens, termination, an erased body. */
let t: Tenants;
let s256: string;
const copies: string[] = [];

beforeAll(async () => {
  t = await startTenants('audit');
  ({ s256 } = await stage(t));
  expect((await t.ps.asPrincipal(t.alice, { body: t.ps.terminateBody(s256) })).status).toBe(200);
  const deletion = { path: '/mission/blob-deletions', body: { mission_s256: s256, request_id: requestId(), purpose: 'retention: body no longer needed' } };
  expect((await t.ps.asPrincipal(t.ops, deletion)).status).toBe(200);
  await t.service.stop('store ready for the audit');
}, 60_000);

afterAll(async () => {
  await t.stop();
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function copy(label: string, change?: (store: StoreSurgery) => void): string {
  const dir = copyDataDir(t.dataDir, label);
  copies.push(dir);
  if (change) {
    const surgery = new StoreSurgery(dir);
    change(surgery);
    surgery.close();
  }
  return dir;
}

const verify = (dir: string) => audit(['verify', '--service', 'person-server', '--data-dir', dir, '--json']);

describe('mission-audit verify on a Person Server store (issue 14, DESIGN 4)', () => {
  it('DESIGN 4: a clean store verifies clean; the erased mission body is reported as erased by design, not as tampering', async () => {
    const run = await verify(copy('clean'));
    expect(run.err).toBe('');
    expect(run.json!.findings).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.json!.seals).toMatchObject({ unsealedEvents: 0, uncoveredEvents: 0 });
    expect(Number(run.json!.seals['erasedStreams'])).toBeGreaterThan(0);
  });

  it('spec mission-management 6: one edited mission-log event is found and named', async () => {
    const stream = `psmission-${s256}`;
    const run = await verify(copy('edit', (store) => store.editData(stream, 1n, (data) => void (data['reason'] = 'completed'))));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ stream, rule: expect.stringMatching(/^(chain\.prev_hash|seal\.mismatch)$/) })]));
  });

  it('spec 3: a second MissionTerminated appended by hand (chain recomputed) is found', async () => {
    const stream = `psmission-${s256}`;
    const run = await verify(copy('second-termination', (store) => {
      const terminated = store.rows(stream).map((row) => JSON.parse(row.record) as { type: string; data: Record<string, unknown> }).find((record) => record.type === 'MissionTerminated')!;
      const sequence = store.rows(stream).length + 1;
      store.append(stream, 'MissionTerminated', { ...terminated.data, sequence, reason: 'completed' } as never);
    }));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'ps.single_termination', stream })]));
  });

  it('spec 2.8: a raw token written into a mission-log event is found by the secret scan', async () => {
    const stream = `psmission-${s256}`;
    const token = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from('{"sub":"x","jti":"y"}').toString('base64url')}.${'A'.repeat(86)}`;
    const run = await verify(copy('secret', (store) => {
      store.editData(stream, 0n, (data) => void (data['note'] = token));
      store.rechain(stream);
    }));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'ps.secret_in_log', stream, revision: '0' })]));
    expect(JSON.stringify(run.json)).not.toContain(token);
  });

  it('timeline of a mission_s256 lists its log and tracked tokens in order', async () => {
    const run = await audit(['timeline', s256, '--service', 'person-server', '--data-dir', copy('timeline'), '--json']);
    expect(run.code).toBe(0);
    const events = (JSON.parse(run.out) as { entries: { event: string }[] }).entries.map((entry) => entry.event);
    expect(events[0]).toBe('MissionApproved');
    expect(events).toEqual(expect.arrayContaining(['AuthTokenIssued', 'MissionTerminated', 'MissionBlobDeleted']));
    expect(events.indexOf('MissionTerminated')).toBeLessThan(events.indexOf('MissionBlobDeleted'));
  });
});
