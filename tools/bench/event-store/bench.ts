/**
 * Event-store benchmark (a script, not a test): `npm run bench:event-store`.
 * Prints, for the embedded adapter on this machine: acknowledged single-event appends/s with 1 and
 * with 64 concurrent writers (durable: synchronous=FULL), CPU and wall time per replay-record append with WAL
 * checkpoints in the worker and by SQLite (ADR 0071), full-read events/s from position 0, peak RSS.
 * Also: the first whole read of each of many small streams (no head cached), as a cascade reads each descendant;
 * the heap the recent-events tail keeps per event (tail-memory.ts).
 * Options: BENCH_READ_EVENTS (default 1000000), BENCH_APPENDS (default 20000), BENCH_FIRST_READS (default 10000),
 * BENCH_TAIL_EVENTS (default 10000), BENCH_ONLY_FIRST_READS=1 / BENCH_ONLY_TAIL_MEMORY=1 (that part alone), BENCH_DIR.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, type EventStore } from '@mission/event-store';
import { tailMemory } from './tail-memory.js';

const readEvents = Number(process.env['BENCH_READ_EVENTS'] ?? 1_000_000);
const appends = Number(process.env['BENCH_APPENDS'] ?? 20_000);
const firstReads = Number(process.env['BENCH_FIRST_READS'] ?? 10_000);
const tailEvents = Number(process.env['BENCH_TAIL_EVENTS'] ?? 10_000);
const payload = { mission_id: 'msn_0123456789abcdefghijkl', state: 'active', reason: 'benchmark', version: 1 };

async function appendWithWriters(store: EventStore, writers: number, total: number, label: string): Promise<void> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      let revision: bigint | 'no_stream' = 'no_stream';
      while (next < total) {
        next++;
        const result = await store.appendToStream(`bench${label}-w${writer}`, [{ type: 'MissionChanged', data: payload }], { expectedRevision: revision });
        revision = result.nextExpectedRevision;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`appends/s, ${String(writers).padStart(2)} writer(s), 1 event each: ${Math.round(total / seconds).toLocaleString('en')} (${total} in ${seconds.toFixed(2)} s)`);
}

async function fill(store: EventStore, count: number): Promise<void> {
  const batch = Array.from({ length: 1000 }, () => ({ type: 'MissionChanged', data: payload }));
  for (let written = 0; written < count; written += batch.length) {
    await store.appendToStream(`fill-${written / batch.length}`, batch.slice(0, Math.min(batch.length, count - written)));
  }
}

async function readAll(store: EventStore): Promise<void> {
  const started = process.hrtime.bigint();
  let count = 0;
  for await (const event of store.readAll()) if (event.type) count++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`full read from position 0: ${Math.round(count / seconds).toLocaleString('en')} events/s (${count.toLocaleString('en')} events in ${seconds.toFixed(2)} s)`);
}

/**
 * Replay records as the services write them (ADR 0067, 0071): one event each to a new stream, acknowledged at commit,
 * 8 writers. CPU (every thread of this process, the WAL fsyncs and checkpoints included) and wall time per append,
 * with WAL checkpoints in the store's worker thread and with SQLite's own checkpoints inside COMMIT on the event
 * loop, alternated A B A B in fresh stores so that the machine's drift hits both alike.
 */
async function replayRecordAppends(total: number): Promise<void> {
  const data = { scope: 'https://issuer.example', jti: '', expires_at: '2026-11-26T12:00:00.000Z', client_id: 'bench-client' };
  for (const walCheckpoints of ['worker', 'sqlite', 'worker', 'sqlite'] as const) {
    const replayDir = mkdtempSync(join(tmpdir(), 'bench-replay-records-'));
    const store = await EmbeddedEventStore.open({ dataDir: replayDir, walCheckpoints });
    await new Promise((resolve) => setTimeout(resolve, 200));
    let next = 0;
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const n = next++;
          // Named as the registry names them: a hash, so each record lands somewhere else in the indexes.
          await store.appendToStream(`clientjti-${createHash('sha256').update(String(n)).digest('base64url')}`, [{ type: 'ClientAssertionUsed', data: { ...data, jti: `jti-${n}` } }], { expectedRevision: 'no_stream', acknowledge: 'committed' });
        }
      }),
    );
    const wallUs = Number(process.hrtime.bigint() - started) / 1e3 / total;
    const used = process.cpuUsage(cpu);
    await store.close();
    rmSync(replayDir, { recursive: true, force: true });
    console.log(`replay-record appends, WAL checkpoints by ${walCheckpoints.padEnd(6)}: ${((used.user + used.system) / total).toFixed(1)} µs CPU, ${wallUs.toFixed(1)} µs wall per append (${total})`);
  }
}

/**
 * The first whole read of each of `count` streams of one event (a mission created and never read since), in a store
 * opened anew so that no stream's head is cached: CPU per read, five rounds of fresh stores (the median is printed).
 */
async function firstWholeReads(count: number): Promise<void> {
  const perRead: number[] = [];
  for (let round = 0; round < 5; round++) {
    const readsDir = mkdtempSync(join(tmpdir(), 'bench-first-reads-'));
    const writer = await EmbeddedEventStore.open({ dataDir: readsDir });
    for (let start = 0; start < count; start += 500) {
      await writer.appendToStreams(Array.from({ length: Math.min(500, count - start) }, (_, n) => ({ streamName: `mission-r${start + n}`, events: [{ type: 'MissionCreated', data: payload }] })));
    }
    await writer.close();
    const store = await EmbeddedEventStore.open({ dataDir: readsDir });
    const cpu = process.cpuUsage();
    let events = 0;
    for (let n = 0; n < count; n++) for await (const event of store.readStream(`mission-r${n}`)) if (event.type) events++;
    const used = process.cpuUsage(cpu);
    if (events !== count) throw new Error(`read ${events} events of ${count}`);
    perRead.push((used.user + used.system) / count);
    await store.close();
    rmSync(readsDir, { recursive: true, force: true });
  }
  const sorted = [...perRead].sort((a, b) => a - b);
  console.log(`first whole read of a one-event stream (${count.toLocaleString('en')} streams, no head cached): median ${sorted[2]!.toFixed(1)} µs CPU per read (rounds ${perRead.map((us) => us.toFixed(1)).join(', ')})`);
}

if (process.env['BENCH_ONLY_TAIL_MEMORY'] === '1') {
  await tailMemory(tailEvents);
  process.exit(0);
}

if (process.env['BENCH_ONLY_FIRST_READS'] === '1') {
  await firstWholeReads(firstReads);
  process.exit(0);
}

const dir = process.env['BENCH_DIR'] ?? mkdtempSync(join(tmpdir(), 'bench-event-store-'));
try {
  console.log(`embedded event store benchmark, node ${process.version}, data in ${dir}`);
  const store = await EmbeddedEventStore.open({ dataDir: dir });
  await appendWithWriters(store, 1, Math.min(appends, 10_000), 'single');
  await appendWithWriters(store, 64, appends, 'many');
  await replayRecordAppends(appends);
  await firstWholeReads(firstReads);
  await tailMemory(tailEvents);
  const already = (await store.headPosition())?.commit ?? 0n;
  await fill(store, Math.max(0, readEvents - Number(already)));
  await store.close();
  const reader = await EmbeddedEventStore.open({ dataDir: dir });
  await readAll(reader);
  await reader.close();
  console.log(`peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
} finally {
  if (!process.env['BENCH_DIR']) rmSync(dir, { recursive: true, force: true });
}
