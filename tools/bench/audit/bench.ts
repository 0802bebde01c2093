/**
 * Audit benchmark (a script, not a test): `npm run bench:audit`.
 * Builds an embedded store of BENCH_AUDIT_EVENTS (default 1,000,000) hash-chained events (10 per stream,
 * mission-transition-sized data), seals it with the platform's SealWriter (a seal per 1,000 events), then
 * measures in the same process: the raw read rate of the audit's read-only reader (decode only), and the
 * replay rate of `verify` (hash per event, chains, seal replay, issuer checks). Prints peak RSS and the
 * load average, since the machine may be shared. Options: BENCH_AUDIT_EVENTS, BENCH_DIR (kept, and reused by the
 * next run with the same BENCH_DIR, so that a change is measured on the same store).
 */
import { generateKeyPair, exportJWK, type JWK } from 'jose';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { es256SealSigner, eventHash, genesisHash, PREV_HASH, SealWriter } from '@mission/es-kit';
import { EmbeddedEventStore, type StreamAppend } from '@mission/event-store';
import { openEmbeddedReader, runVerify } from '@mission/mission-audit';

const total = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 1_000_000);
const PER_STREAM = 10;
const STREAMS_PER_APPEND = 1_000;

const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;
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

  const reader = openEmbeddedReader(dataDir);
  started = process.hrtime.bigint();
  let read = 0;
  for await (const event of reader.readAll()) if (event.revision >= 0n) read += 1;
  const rawTime = seconds(started);
  console.log(`raw read (audit reader, decode only): ${rate(read, rawTime)}`);
  started = process.hrtime.bigint();
  const report = await runVerify(reader, 'issuer', jwks);
  const verifyTime = seconds(started);
  await reader.close();
  console.log(`verify replay: ${rate(report.events, verifyTime)}; ${report.seals.seals} seals, ${report.seals.sealedEvents.toLocaleString('en')} sealed, unsealed ${report.seals.unsealedEvents}; findings ${report.findings.length}`);
  console.log(`verify / raw read: ${((report.events / verifyTime / (read / rawTime)) * 100).toFixed(1)} %`);
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; load average at end: ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  if (!process.env['BENCH_DIR']) rmSync(dataDir, { recursive: true, force: true });
}

await main();
