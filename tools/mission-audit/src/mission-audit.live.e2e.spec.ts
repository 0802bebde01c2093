import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { obtainRootMission } from '../../../apps/issuer/src/testing/mission-flows.js';
// eslint-disable-next-line @nx/enforce-module-boundaries -- a tool (type:tool may use any project) drives the app's own test harness; apps export no packages
import { repositoryRoot, startIssuer } from '../../../apps/issuer/src/testing/run-issuer.js';
import Database from 'better-sqlite3';
import { openEmbeddedReader } from './source/embedded-reader.js';
import { audit, copyDataDir } from './testing/tamper.spec-helper.js';

/**
 * Issue 14: "`--data-dir` … safe while the service runs; never writes". The service keeps its single-writer
 * lock in a separate file (ADR 0003), so the read-only audit reads a WAL snapshot of the live store.
 */
const details = [{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] }];
const bin = join(repositoryRoot, 'tools/mission-audit/bin/mission-audit.mjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function liveDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'audit-live-'));
  dirs.push(dir);
  return dir;
}

function runBin(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], (error, out, err) => resolve({ code: error ? Number(error.code) : 0, out, err }));
  });
}

describe('mission-audit on the store of a running service (issue 14; ADR 0003, 0029)', () => {
  it('issue 14 (safe while the service runs): `verify` in another process exits 0 while the service keeps writing, and the service stays healthy', async () => {
    const dir = liveDir();
    const { service } = await startIssuer(dir, { SEAL_EVERY_EVENTS: '5' });
    try {
      const url = service.listenUrl;
      await obtainRootMission(url, { details });
      const audit = runBin(['verify', '--service', 'issuer', '--data-dir', dir, '--json']);
      let auditDone = false;
      void audit.then(() => (auditDone = true));
      // The service goes on creating missions for as long as the audit runs (and at least once).
      let written = 0;
      do {
        await obtainRootMission(url, { details });
        written += 1;
      } while (!auditDone);
      const run = await audit;
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect((JSON.parse(run.out) as { findings: unknown[] }).findings).toEqual([]);
      expect(written).toBeGreaterThan(0);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      await obtainRootMission(url, { details });
    } finally {
      await service.stop('test finished');
    }
  }, 120_000);

  it('ADR 0029 (one snapshot): everything the audit reads comes from the store as it was at its first read, while the service commits more', async () => {
    const dir = liveDir();
    const { service } = await startIssuer(dir);
    try {
      const url = service.listenUrl;
      await obtainRootMission(url, { details });
      const source = openEmbeddedReader(dir);
      let before = 0;
      for await (const event of source.readAll()) if (event.streamName.startsWith('mission-')) before += 1;
      // Gate: the audit has read the whole log; now the service commits a new mission.
      const later = await obtainRootMission(url, { details });
      const seen: string[] = [];
      for await (const event of source.readStream(`mission-${later.tokens.mission_id}`)) seen.push(event.type);
      let after = 0;
      for await (const event of source.readAll()) if (event.streamName.startsWith('mission-')) after += 1;
      await source.close();
      expect(before).toBeGreaterThan(0);
      expect(seen).toEqual([]);
      expect(after).toBe(before);
      const fresh = openEmbeddedReader(dir);
      const types: string[] = [];
      for await (const event of fresh.readStream(`mission-${later.tokens.mission_id}`)) types.push(event.type);
      await fresh.close();
      expect(types).toContain('MissionCreated');
    } finally {
      await service.stop('test finished');
    }
  }, 120_000);

  it('ADR 0029: a store file held exclusively (a service of an older build) is left alone: exit 2 saying it is locked', async () => {
    const dir = liveDir();
    const { service } = await startIssuer(dir);
    await obtainRootMission(service.listenUrl, { details });
    await service.stop('store ready');
    const copy = copyDataDir(dir, 'exclusive');
    dirs.push(copy);
    const holder = new Database(join(copy, 'events.sqlite'));
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE; COMMIT;');
    try {
      expect(await audit(['verify', '--service', 'issuer', '--data-dir', copy])).toMatchObject({ code: 2, err: expect.stringContaining('locked by a running service') });
    } finally {
      holder.close();
    }
  }, 60_000);
});
