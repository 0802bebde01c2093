import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventHash, genesisHash, PREV_HASH } from '@mission/es-kit';
import { EmbeddedEventStore, type StreamAppend } from '@mission/event-store';
import { openEmbeddedReader } from '../source/embedded-reader.js';
import { audit, copyDataDir, StoreSurgery } from '../testing/tamper.spec-helper.js';
import { runVerify } from './run-verify.js';

/** The thread is the built script (Worker threads run plain Node, not ts-jest): `npm test` builds it first (typecheck). */
const readerThread = new URL('../../dist/source/reader-thread.js', import.meta.url);
/** Small pages, so that several are in flight at once and any reordering of hashes breaks a chain. */
const paging = { rows: 7, decoded: 3, threadRows: 3 };
const STREAMS = 6;
const PER_STREAM = 8;

describe('verify with the reader thread (ADR 0037): the same report as on one thread', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-workers-'));
  const copies: string[] = [];
  beforeAll(async () => {
    if (!existsSync(readerThread)) throw new Error(`${readerThread.pathname} is missing: run npm run build (npm test does) before this spec`);
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
    const settle = (run: Promise<unknown>) => run.then((report) => ({ report }), (error: Error) => ({ error: error.message }));
    const verifyWith = async (thread: URL | false) => {
      const reader = openEmbeddedReader(dir, { paging, readerThread: thread });
      try {
        return await settle(runVerify(reader, 'issuer', undefined));
      } finally {
        await reader.close();
      }
    };
    return { mainThread: await verifyWith(false), workers: await verifyWith(readerThread) };
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

  it('issue 14 verify: the built bin with --threads 2 exits 0 on the clean store and 1 naming the edited event, as with --threads 1', async () => {
    const bin = new URL('../../bin/mission-audit.mjs', import.meta.url).pathname;
    const run = (dir: string, extra: string[]) => new Promise<{ code: number; json: { findings: unknown[]; events: number } }>((resolve) => {
      execFile(process.execPath, [bin, 'verify', '--service', 'issuer', '--data-dir', dir, '--json', ...extra], (error, stdout) => {
        resolve({ code: error ? Number(error.code) : 0, json: JSON.parse(stdout) as { findings: unknown[]; events: number } });
      });
    });
    const copy = tampered('bin-edited', (surgery) => surgery.editData('mission-m0', 1n, (data) => void (data['n'] = -1)));
    const clean = await run(dataDir, ['--threads', '2']);
    expect(clean).toMatchObject({ code: 0, json: { events: STREAMS * (PER_STREAM + 1), findings: [] } });
    const withWorker = await run(copy, ['--threads', '2']);
    expect(withWorker).toMatchObject({ code: 1, json: { findings: [{ rule: 'chain.prev_hash', stream: 'mission-m0', revision: '2' }] } });
    expect(withWorker).toEqual(await run(copy, ['--threads', '1']));
    expect(withWorker).toEqual(await run(copy, []));
  });

  it('issue 14 exit 2: --threads takes 1 or 2, and only with --data-dir', async () => {
    for (const bad of ['0', '3', 'x', '']) {
      expect(await audit(['verify', '--service', 'issuer', '--data-dir', dataDir, '--threads', bad])).toMatchObject({ code: 2, err: expect.stringContaining('--threads must be 1 or 2') });
    }
    expect(await audit(['verify', '--service', 'issuer', '--connection-string', 'esdb://localhost:1', '--threads', '2'])).toMatchObject({ code: 2, err: expect.stringContaining('--threads belongs to --data-dir') });
    for (const threads of ['1', '2']) expect(await audit(['verify', '--service', 'issuer', '--data-dir', dataDir, '--threads', threads])).toMatchObject({ code: 0 });
  });

  it('ADR 0037: a lone surrogate written into an event (the service cannot write one) is found as an edit either way', async () => {
    const copy = tampered('surrogate', (surgery) => surgery.editData('mission-m1', 2n, (data) => void (data['note'] = 'lone \ud800')));
    const { mainThread, workers } = await verifyBothWays(copy);
    expect(mainThread).toMatchObject({ report: { clean: false, findings: [{ rule: 'chain.prev_hash', stream: 'mission-m1', revision: '3' }] } });
    expect(workers).toEqual(mainThread);
  });

  it('ADR 0037: the stored bytes are held to what the service wrote: the same values with other whitespace or member order are an edit', async () => {
    const spaced = tampered('spaced', (surgery) => surgery.rewriteRecord('mission-m2', 4n, (text) => text.replace('"n":4', '"n": 4')));
    const reordered = tampered('reordered', (surgery) => surgery.rewriteRecord('mission-m2', 4n, (text) => text.replace('{"n":4,"note":"stream 2 ☃ 😀"}', '{"note":"stream 2 ☃ 😀","n":4}')));
    for (const copy of [spaced, reordered]) {
      const { mainThread, workers } = await verifyBothWays(copy);
      expect(mainThread).toMatchObject({ report: { clean: false, findings: [{ rule: 'chain.prev_hash', stream: 'mission-m2', revision: '5' }] } });
      expect(workers).toEqual(mainThread);
    }
  });

  it('ADR 0037: a record laid out otherwise than the store writes it is parsed whole and hashed from its values, either way', async () => {
    const copy = tampered('layout', (surgery) => surgery.rewriteRecord('mission-m4', 1n, (text) => {
      const { id, type, created, metadata, data } = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify({ data, metadata, created, type, id });
    }));
    const { mainThread, workers } = await verifyBothWays(copy);
    expect(mainThread).toMatchObject({ report: { clean: true } });
    expect(workers).toEqual(mainThread);
  });

  it('ADR 0037: a record that is not JSON stops verify with its place named, either way', async () => {
    const copy = tampered('not-json', (surgery) => surgery.rewriteRecord('mission-m5', 6n, (text) => text.replace('"note":', '"note"')));
    const { mainThread, workers } = await verifyBothWays(copy);
    expect(mainThread).toEqual({ error: expect.stringMatching(/^mission-m5 revision 6: the stored data is not JSON/) });
    expect(workers).toEqual(mainThread);
  });
});
