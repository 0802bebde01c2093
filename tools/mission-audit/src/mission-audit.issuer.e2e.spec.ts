import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { genesisHash, PREV_HASH } from '@mission/es-kit';
import { EmbeddedEventStore, type EventStore } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { obtainChildMission, obtainRootMission, postAs } from '../../../apps/issuer/src/testing/mission-flows.js';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { repositoryRoot, startIssuer } from '../../../apps/issuer/src/testing/run-issuer.js';
import { audit, copyDataDir, StoreSurgery } from './testing/tamper.spec-helper.js';

/** Issue 14: `mission-audit` on a copy of a real issuer store, clean and tampered with. */
const INVOICES = 'https://erp.example.com/invoices';
const rootDetails = (maxChildren: number) => [{
  type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'],
  delegation: { max_depth: 2, children: { max_children: maxChildren, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 2 } },
}];
const childDetails = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

let dataDir: string;
const copies: string[] = [];
let capped: { root: string; child: string };
let cascaded: { root: string; child: string };

async function cascadeRecorded(store: EventStore, missionId: string): Promise<boolean> {
  for await (const event of store.readStream(`mission-${missionId}`)) if (event.type === 'MissionCascaded') return true;
  return false;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'audit-issuer-'));
  // A seal every 5 events, so the run leaves several seals behind.
  const { service } = await startIssuer(dataDir, { SEAL_EVERY_EVENTS: '5' });
  const url = service.listenUrl;
  const a = await obtainRootMission(url, { details: rootDetails(1) });
  const a1 = await obtainChildMission(url, a, 'demo-subagent', { details: childDetails, childActor: { sub: 'demo-subagent', sub_profile: 'ai_agent' } });
  const b = await obtainRootMission(url, { details: rootDetails(3) });
  const b1 = await obtainChildMission(url, b, 'demo-subagent', { details: childDetails, childActor: { sub: 'demo-subagent', sub_profile: 'ai_agent' } });
  const revoked = await postAs(url, 'demo-agent', '/missions/lifecycle', { mission_id: b.tokens.mission_id, operation: 'revoke', reason: 'audit test' });
  expect(revoked.status).toBe(200);
  const store = service.app.get<EventStore>(EVENT_STORE);
  for (let waited = 0; !(await cascadeRecorded(store, b1.tokens.mission_id)); waited += 20) {
    if (waited > 20_000) throw new Error('cascade not recorded');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  capped = { root: a.tokens.mission_id, child: a1.tokens.mission_id };
  cascaded = { root: b.tokens.mission_id, child: b1.tokens.mission_id };
  await service.stop('store ready for the audit');
}, 60_000);

afterAll(() => {
  for (const dir of [dataDir, ...copies]) rmSync(dir, { recursive: true, force: true });
});

function tampered(label: string, change: (store: StoreSurgery) => void): string {
  const copy = copyDataDir(dataDir, label);
  copies.push(copy);
  const surgery = new StoreSurgery(copy);
  change(surgery);
  surgery.close();
  return copy;
}

const verify = (dir: string) => audit(['verify', '--service', 'issuer', '--data-dir', dir, '--json']);

describe('mission-audit verify on an issuer store (issue 14, DESIGN 4)', () => {
  it('DESIGN 4: a clean store after a full run verifies clean, every event sealed, exit 0', async () => {
    const run = await verify(copyDataDir(dataDir, 'clean'));
    expect(run.err).toBe('');
    expect(run.json!.findings).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.json!.seals).toMatchObject({ unsealedEvents: 0, uncoveredEvents: 0 });
    expect(Number(run.json!.seals['seals'])).toBeGreaterThan(1);
  });

  it('ADR 0057: replay records swept after their window are expired by design, not tampering; swept too soon they are a finding', async () => {
    const copy = copyDataDir(dataDir, 'swept');
    copies.push(copy);
    const store = await EmbeddedEventStore.open({ dataDir: copy });
    const records: string[] = [];
    for await (const event of store.readAll({ filter: { streamCategories: ['clientjti', 'dpopjti'] } })) records.push(event.streamName);
    await store.expireStreams(records);
    await store.close();
    expect(records.length).toBeGreaterThan(0);

    const later = await audit(['verify', '--service', 'issuer', '--data-dir', copy, '--json', '--as-of', new Date(Date.now() + 3_600_000).toISOString()]);
    expect(later.json!.findings).toEqual([]);
    expect(later.json!.seals).toMatchObject({ expiredRecords: records.length });
    // Seconds after they were sealed, no sweep could have removed them: someone deleted replay records.
    const now = await verify(copy);
    expect(now.code).toBe(1);
    expect(now.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'seal.missing_events', stream: records[0] })]));
  });

  it('spec mission-management 6 (log not rewritable): an edited event is found and named by stream and revision', async () => {
    const stream = `mission-${cascaded.root}`;
    const run = await verify(tampered('edit', (store) => store.editData(stream, 0n, (data) => void (data['expires_at'] = '2099-01-01T00:00:00.000Z'))));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'chain.prev_hash', stream, revision: '1' })]));
  });

  it('ADR 0028: an edit with every prev_hash recomputed still disagrees with the signed seal', async () => {
    const stream = `mission-${cascaded.root}`;
    const run = await verify(tampered('rechain', (store) => {
      store.editData(stream, 0n, (data) => void (data['expires_at'] = '2099-01-01T00:00:00.000Z'));
      store.rechain(stream);
    }));
    expect(run.code).toBe(1);
    expect(run.json!.findings.filter((finding) => finding.rule.startsWith('chain.'))).toEqual([]);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'seal.mismatch', stream })]));
  });

  it('a dropped event is found: the revision gap is named', async () => {
    const stream = `mission-${cascaded.root}`;
    const run = await verify(tampered('drop', (store) => store.deleteEvent(stream, 1n)));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'chain.revision', stream, revision: '2' })]));
  });

  it('two swapped events are found', async () => {
    const stream = `mission-${cascaded.root}`;
    const run = await verify(tampered('swap', (store) => store.swapRecords(stream, 0n, 1n)));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'chain.prev_hash', stream, revision: '0' })]));
  });

  it('ADR 0028: an inserted, correctly chained stream inside a sealed range is found by the seal', async () => {
    const forged = 'mission-forged0000000000000000000000';
    const run = await verify(tampered('insert', (store) => {
      const at = store.rows(`mission-${cascaded.root}`)[1]!.position;
      const metadata = { actor: { id: 'mallory', role: 'admin' }, occurred_at: '2026-01-01T00:00:00.000Z', [PREV_HASH]: genesisHash(forged) };
      store.insertStreamAt(at, forged, { id: 'forged', type: 'MissionCreated', created: Date.now(), metadata, data: {} });
    }));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'seal.unsigned_events', stream: forged })]));
  });

  it('ADR 0028: a deleted seal is found, and the events it covered are reported as covered by no valid seal', async () => {
    const run = await verify(tampered('unseal', (store) => store.deleteEvent('auditseal-issuer', 1n)));
    expect(run.code).toBe(1);
    const rules = run.json!.findings.map((finding) => finding.rule);
    expect(rules).toEqual(expect.arrayContaining(['seal.sequence', 'seal.uncovered']));
    expect(Number(run.json!.seals['uncoveredEvents'])).toBeGreaterThan(0);
  });

  it('spec 2.4 rule 2: an extra child attached past max_children by hand is found (even with the chain recomputed)', async () => {
    const stream = `mission-${capped.root}`;
    const run = await verify(tampered('max-children', (store) => {
      const attached = store.rows(stream).map((row) => JSON.parse(row.record) as { type: string; data: Record<string, unknown> }).find((record) => record.type === 'ChildMissionAttached')!;
      store.append(stream, 'ChildMissionAttached', { ...attached.data, child_mission_id: 'forgedchild00000000000000000' } as never);
    }));
    expect(run.code).toBe(1);
    expect(run.json!.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'issuer.max_children', stream })]));
    expect(run.json!.seals['unsealedEvents']).toBe(1);
  });

  it('timeline prints the mission and its descendants in order; export streams NDJSON from a position on', async () => {
    const copy = copyDataDir(dataDir, 'timeline');
    copies.push(copy);
    const timeline = await audit(['timeline', cascaded.root, '--service', 'issuer', '--data-dir', copy, '--json']);
    expect(timeline.code).toBe(0);
    const parsed = JSON.parse(timeline.out) as { tree: Record<string, string[]>; entries: { mission: string; event: string; actor?: { role: string } }[] };
    expect(parsed.tree).toEqual({ [cascaded.root]: [cascaded.child] });
    // The slot release (ChildMissionDetached) may or may not have run before the service stopped.
    expect(parsed.entries.slice(0, 5).map((entry) => [entry.mission === cascaded.root ? 'root' : 'child', entry.event])).toEqual([
      ['root', 'MissionCreated'], ['root', 'ChildMissionAttached'], ['child', 'MissionCreated'], ['root', 'MissionRevoked'], ['child', 'MissionCascaded'],
    ]);
    expect(parsed.entries.find((entry) => entry.event === 'MissionRevoked')?.actor?.role).toBeDefined();
    const all = await audit(['export', '--service', 'issuer', '--data-dir', copy]);
    const lines = all.out.split('\n').map((line) => JSON.parse(line) as { position: string });
    const later = await audit(['export', '--service', 'issuer', '--data-dir', copy, '--since', lines[9]!.position]);
    expect(later.out.split('\n')).toHaveLength(lines.length - 10);
  });

  it('exit 2 with a clear message for bad arguments and an unreadable store', async () => {
    expect(await audit(['verify', '--service', 'nope', '--data-dir', dataDir])).toMatchObject({ code: 2, err: expect.stringContaining('--service must be one of') });
    expect(await audit(['verify', '--service', 'issuer', '--data-dir', join(dataDir, 'missing')])).toMatchObject({ code: 2, err: expect.stringContaining('no embedded event store') });
  });

  it('DESIGN 4: `mission-audit` runs as the installed bin (exit 0 clean, 1 after one edited event)', async () => {
    const bin = join(repositoryRoot, 'tools/mission-audit/bin/mission-audit.mjs');
    const exitOf = (dir: string) => new Promise<number>((resolve) => execFile(process.execPath, [bin, 'verify', '--service', 'issuer', '--data-dir', dir], (error) => resolve(error ? Number(error.code) : 0)));
    expect(await exitOf(copyDataDir(dataDir, 'bin-clean'))).toBe(0);
    expect(await exitOf(tampered('bin-edit', (store) => store.editData(`mission-${capped.child}`, 0n, (data) => void (data['client_id'] = 'x'))))).toBe(1);
  });
});


