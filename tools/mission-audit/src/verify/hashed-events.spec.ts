import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventHash, genesisHash, PREV_HASH } from '@mission/es-kit';
import { EmbeddedEventStore, type StreamAppend } from '@mission/event-store';
import { openEmbeddedReader } from '../source/embedded-reader.js';
import { audit, copyDataDir, StoreSurgery } from '../testing/tamper.spec-helper.js';
import { runVerify } from './run-verify.js';

/** The worker is the built script (Worker threads run plain Node, not ts-jest): `npm test` builds it first (typecheck). */
const workerUrl = new URL('../../dist/verify/hash-worker.js', import.meta.url);
/** Small pages, so that many are in flight on two workers at once and any reordering of hashes breaks a chain. */
const paging = { rows: 7, decoded: 3 };
const STREAMS = 6;
const PER_STREAM = 8;

describe('verify with hash workers (ADR 0036): the same report as on the main thread', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-workers-'));
  const copies: string[] = [];
  beforeAll(async () => {
    if (!existsSync(workerUrl)) throw new Error(`${workerUrl.pathname} is missing: run npm run build (npm test does) before this spec`);
    const store = await EmbeddedEventStore.open({ dataDir });
    const appends: StreamAppend[] = [];
    for (let s = 0; s < STREAMS; s++) {
      const name = `mission-m${s}`;
      let prev = genesisHash(name);
      const events = [];
      for (let r = 0; r < PER_STREAM; r++) {
        const event = { type: 'BenchTransition', data: { n: r, note: `stream ${s} ☃ 😀` }, metadata: { correlation_id: `c${s}`, [PREV_HASH]: prev } };
        prev = eventHash({ streamName: name, revision: BigInt(r), ...event });
        events.push(event);
      }
      appends.push({ streamName: name, events: events.slice(0, 4) }, { streamName: `grant-g${s}`, events: [{ type: 'GrantNoted', data: { s } }] });
      appends.push({ streamName: name, events: events.slice(4) });
    }
    await store.appendToStreams(appends);
    await store.close();
  });
  afterAll(() => {
    for (const dir of [dataDir, ...copies]) rmSync(dir, { recursive: true, force: true });
  });

  const verifyBothWays = async (dir: string) => {
    const reader = openEmbeddedReader(dir, 2_000, paging);
    try {
      const settle = (run: Promise<unknown>) => run.then((report) => ({ report }), (error: Error) => ({ error: error.message }));
      return {
        mainThread: await settle(runVerify(reader, 'issuer', undefined)),
        workers: await settle(runVerify(reader, 'issuer', undefined, { hashWorkers: 2, workerUrl })),
      };
    } finally {
      await reader.close();
    }
  };
  const tampered = (label: string, change: (surgery: StoreSurgery) => void): string => {
    const copy = copyDataDir(dataDir, label);
    copies.push(copy);
    const surgery = new StoreSurgery(copy);
    change(surgery);
    surgery.close();
    return copy;
  };

  it('issue 14 verify: a clean store is clean either way, every event counted once, in order', async () => {
    const { mainThread, workers } = await verifyBothWays(dataDir);
    expect(mainThread).toMatchObject({ report: { clean: true, events: STREAMS * (PER_STREAM + 1), streams: STREAMS * 2 } });
    expect(workers).toEqual(mainThread);
  });

  it('issue 14 verify (1): an edited event is named identically by both', async () => {
    const copy = tampered('edited', (surgery) => surgery.editData('mission-m3', 5n, (data) => void (data['n'] = 99)));
    const { mainThread, workers } = await verifyBothWays(copy);
    expect(mainThread).toMatchObject({ report: { clean: false, findings: [{ rule: 'chain.prev_hash', stream: 'mission-m3', revision: '6' }] } });
    expect(workers).toEqual(mainThread);
  });

  it('issue 14 verify: the built bin with --hash-workers 1 exits 0 on the clean store and 1 naming the edited event, as without', async () => {
    const bin = new URL('../../bin/mission-audit.mjs', import.meta.url).pathname;
    const run = (dir: string, extra: string[]) => new Promise<{ code: number; json: { findings: unknown[]; events: number } }>((resolve) => {
      execFile(process.execPath, [bin, 'verify', '--service', 'issuer', '--data-dir', dir, '--json', ...extra], (error, stdout) => {
        resolve({ code: error ? Number(error.code) : 0, json: JSON.parse(stdout) as { findings: unknown[]; events: number } });
      });
    });
    const copy = tampered('bin-edited', (surgery) => surgery.editData('mission-m0', 1n, (data) => void (data['n'] = -1)));
    const clean = await run(dataDir, ['--hash-workers', '1']);
    expect(clean).toMatchObject({ code: 0, json: { events: STREAMS * (PER_STREAM + 1), findings: [] } });
    const withWorker = await run(copy, ['--hash-workers', '1']);
    expect(withWorker).toMatchObject({ code: 1, json: { findings: [{ rule: 'chain.prev_hash', stream: 'mission-m0', revision: '2' }] } });
    expect(withWorker).toEqual(await run(copy, []));
  });

  it('issue 14 exit 2: --hash-workers takes a whole number from 0 to 64, and only for verify', async () => {
    for (const bad of ['-1', '1.5', 'x', '65', '']) {
      expect(await audit(['verify', '--service', 'issuer', '--data-dir', dataDir, '--hash-workers', bad])).toMatchObject({ code: 2, err: expect.stringContaining(bad === '-1' ? "'--hash-workers' argument is ambiguous" : '--hash-workers must be') });
    }
    expect(await audit(['export', '--service', 'issuer', '--data-dir', dataDir, '--hash-workers', '1'])).toMatchObject({ code: 2, err: expect.stringContaining('--hash-workers belongs to verify') });
    expect(await audit(['verify', '--service', 'issuer', '--data-dir', dataDir, '--hash-workers', '0'])).toMatchObject({ code: 0 });
  });

  it('issue 14 verify: a record no worker can hash (a lone surrogate, which JCS refuses) fails exactly as on the main thread', async () => {
    const copy = tampered('surrogate', (surgery) => surgery.editData('mission-m1', 2n, (data) => void (data['note'] = 'lone \ud800')));
    const { mainThread, workers } = await verifyBothWays(copy);
    expect(mainThread).toEqual({ error: expect.stringMatching(/surrogate/i) });
    expect(workers).toEqual(mainThread);
  });
});
