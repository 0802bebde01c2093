/**
 * Audit benchmark (a script, not a test): `npm run bench:audit`.
 * Builds an embedded store of BENCH_AUDIT_EVENTS (default 1,000,000) hash-chained events (10 per stream,
 * mission-transition-sized data), seals it with the platform's SealWriter (a seal per 1,000 events), then
 * measures in the same process: the raw read rate of the store (SQL pages and JSON.parse of every record; and the audit's `readAll`, one event per await), and the
 * replay rate of `verify` (hash per event, chains, seal replay, issuer checks). Prints peak RSS and the
 * load average, since the machine may be shared. verify runs twice per round: all on one thread (`--threads 1`),
 * and with the store read and hashed on a reader thread (ADR 0037, the default with 2 CPUs). Options: BENCH_AUDIT_EVENTS, BENCH_AUDIT_ROUNDS (default 3: raw reads and
 * verify alternate, the best of each is compared), BENCH_DIR (kept, and reused by the
 * next run with the same BENCH_DIR, so that a change is measured on the same store).
 */
import Database from 'better-sqlite3';
import { generateKeyPair, exportJWK, type JWK } from 'jose';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { es256SealSigner, eventHash, genesisHash, PREV_HASH, SealWriter } from '@mission/es-kit';
import { EmbeddedEventStore, type StreamAppend } from '@mission/event-store';
import { openEmbeddedReader, runVerify } from '@mission/mission-audit';

const total = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 1_000_000);
/** Raw read and verify alternate this many times on the same store; the best of each is compared (a shared machine's load varies). */
const rounds = Math.max(1, Number(process.env['BENCH_AUDIT_ROUNDS'] ?? 3));
const PER_STREAM = 10;
const STREAMS_PER_APPEND = 1_000;

const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;
const perSecond = ({ wall, cpu }: Rates): string => `${Math.round(wall).toLocaleString('en')}/s (${Math.round(cpu).toLocaleString('en')} per CPU-s)`;
const percent = (part: number, whole: number): string => `${((part / whole) * 100).toFixed(1)} %`;

/** Events per second of wall time, and per second of this process's CPU time (all threads): the latter moves less with the machine's load. */
interface Rates {
  wall: number;
  cpu: number;
}

function verified(report: Awaited<ReturnType<typeof runVerify>>): number {
  if (!report.clean || report.seals.sealedEvents !== report.events) throw new Error(`the bench store did not verify clean: ${JSON.stringify(report.findings.slice(0, 3))}`);
  return report.events;
}

async function measure(run: () => Promise<number>): Promise<Rates> {
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const count = await run();
  const wall = seconds(started);
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: count / wall, cpu: count / ((cpu.user + cpu.system) / 1e6) };
}
const rate = (count: number, time: number): string => `${Math.round(count / time).toLocaleString('en')} events/s (${count.toLocaleString('en')} in ${time.toFixed(1)} s)`;

function dataOf(stream: number, revision: number) {
  return {
    mission_id: `msn_${stream.toString(36).padStart(22, '0')}`, actor: { id: 'demo-agent', role: 'client' }, reason: 'benchmark transition',
    previous_state: 'active', state: revision % 2 === 0 ? 'suspended' : 'active', version: revision + 1, occurred_at: new Date(1_790_000_000_000 + stream).toISOString(),
  };
}

async function fill(store: EmbeddedEventStore): Promise<void> {
  const streams = Math.ceil(total / PER_STREAM);
  for (let first = 0; first < streams; first += STREAMS_PER_APPEND) {
    const appends: StreamAppend[] = [];
    for (let s = first; s < Math.min(streams, first + STREAMS_PER_APPEND); s++) {
      const name = `bench-${s}`;
      let prev = genesisHash(name);
      const events = [];
      for (let r = 0; r < PER_STREAM; r++) {
        const event = { type: 'BenchTransition', data: dataOf(s, r), metadata: { correlation_id: `c${s}`, causation_id: `r${s}`, actor: { id: 'demo-agent', role: 'client' }, occurred_at: '2026-11-22T10:00:00.000Z', [PREV_HASH]: prev } };
        prev = eventHash({ streamName: name, revision: BigInt(r), ...event });
        events.push(event);
      }
      appends.push({ streamName: name, events, expectedRevision: 'no_stream' });
    }
    await store.appendToStreams(appends);
  }
}

function rawReadInPages(dataDir: string): number {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    db.defaultSafeIntegers(true);
    const page = db.prepare('SELECT position, stream, revision, record FROM events WHERE position > ? ORDER BY position LIMIT 5000').raw(true);
    let read = 0;
    let from = 0n;
    for (;;) {
      const rows = page.all(from) as [bigint, string, bigint, string][];
      for (const row of rows) if ((JSON.parse(row[3]) as { type?: string }).type !== undefined) read += 1;
      if (rows.length < 5_000) return read;
      from = rows[rows.length - 1]![0];
    }
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const dataDir = process.env['BENCH_DIR'] ?? mkdtempSync(join(tmpdir(), 'bench-audit-'));
  console.log(`load average at start: ${loadavg().map((load) => load.toFixed(2)).join(' ')} (${process.env['BENCH_DIR'] ? 'given' : 'temp'} dir ${dataDir})`);
  const jwksFile = join(dataDir, 'bench-jwks.json');
  let jwks: { keys: JWK[] };
  let started: bigint;
  if (existsSync(jwksFile)) {
    // A store kept from an earlier run (BENCH_DIR): measure the same data again, e.g. before and after a change.
    jwks = JSON.parse(readFileSync(jwksFile, 'utf8')) as { keys: JWK[] };
    console.log(`reusing the store in ${dataDir}`);
  } else {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256' }] };
    started = process.hrtime.bigint();
    const store = await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
    await fill(store);
    console.log(`filled: ${rate(total, seconds(started))}`);
    started = process.hrtime.bigint();
    const sealer = new SealWriter({ store, service: 'issuer', signer: es256SealSigner(privateKey, 'bench'), everyEvents: 1_000, everyMs: 3_600_000 });
    await sealer.start();
    await sealer.stop();
    await store.close();
    console.log(`sealed by SealWriter: ${rate(total, seconds(started))}`);
    writeFileSync(jwksFile, JSON.stringify(jwks));
  }

  const reader = openEmbeddedReader(dataDir, { readerThread: false });
  const threaded = openEmbeddedReader(dataDir);
  const phases: [string, () => Promise<number>][] = [
    ['raw read, one event per await', async () => {
      let read = 0;
      for await (const event of reader.readAll()) if (event.revision >= 0n) read += 1;
      return read;
    }],
    // The reference for the ratios: the store read raw — SQL pages of 5,000 rows, JSON.parse of every record,
    // nothing else (no event objects, no hashes): what any reader of this store must at least do.
    ['raw read in pages', async () => rawReadInPages(dataDir)],
    ['verify', async () => verified(await runVerify(reader, 'issuer', jwks))],
    ['verify, reader thread', async () => verified(await runVerify(threaded, 'issuer', jwks))],
  ];
  const best = new Map<string, Rates>(phases.map(([name]) => [name, { wall: 0, cpu: 0 }]));
  for (let round = 1; round <= rounds; round++) {
    const results: string[] = [];
    const load = loadavg()[0]!.toFixed(2);
    let pages: Rates | undefined;
    for (const [name, run] of phases) {
      const rates = await measure(run);
      pages ??= name === 'raw read in pages' ? rates : undefined;
      const ratio = name.startsWith('verify') && pages ? ` = ${percent(rates.wall, pages.wall)} of pages (CPU ${percent(rates.cpu, pages.cpu)})` : '';
      results.push(`${name} ${perSecond(rates)}${ratio}`);
      const kept = best.get(name)!;
      best.set(name, { wall: Math.max(kept.wall, rates.wall), cpu: Math.max(kept.cpu, rates.cpu) });
    }
    console.log(`round ${round} (load ${load}): ${results.join('; ')}`);
  }
  await reader.close();
  await threaded.close();
  const pages = best.get('raw read in pages')!;
  console.log(`best of ${rounds}:`);
  for (const [name, rates] of best) {
    console.log(`  ${name}: ${perSecond(rates)}${name.startsWith('verify') ? `; ${percent(rates.wall, pages.wall)} of raw read in pages (CPU ${percent(rates.cpu, pages.cpu)})` : ''}`);
  }
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; load average at end: ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  if (!process.env['BENCH_DIR']) rmSync(dataDir, { recursive: true, force: true });
}

await main();
