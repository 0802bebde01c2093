/**
 * Issue 15 item 5 (ADR 0057): how fast expired replay records leave the embedded store, and what they cost it.
 *
 *   npm run build && node tools/bench/dist/event-store/replay-sweep.js
 *   BENCH_RECORDS=100000 node tools/bench/dist/event-store/replay-sweep.js
 *
 * Writes BENCH_RECORDS DPoP replay records (one stream, one `DpopProofUsed` event each, as the issuer does), with
 * `expires_at` one minute after their use, then sweeps them with the issuer's own `JTI_REPLAY_RECORDS` and the
 * default 5-minute grace at a clock six minutes later. Prints records swept per second, the store's size in
 * pages before and after (SQLite reuses freed pages; the file itself does not shrink) and that the
 * names are free again.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_EXPIRED_RECORD_GRACE_MS, ExpiredRecordSweeper } from '@mission/es-kit';
import { EmbeddedEventStore, type StreamAppend } from '@mission/event-store';
import { JTI_REPLAY_RECORDS } from '@mission/issuer-oauth';

const RECORDS = Number(process.env['BENCH_RECORDS'] ?? 100_000);
const T0 = Date.parse('2026-11-26T10:00:00Z');

function livePages(dataDir: string): number {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    const pages = Number(db.pragma('page_count', { simple: true }));
    const free = Number(db.pragma('freelist_count', { simple: true }));
    return pages - free;
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-replay-sweep-'));
  try {
    const store = await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
    const started = performance.now();
    for (let done = 0; done < RECORDS; done += 1000) {
      const appends: StreamAppend[] = [];
      for (let i = done; i < Math.min(done + 1000, RECORDS); i++) {
        const jkt = createHash('sha256').update(`key-${i % 64}`).digest('base64url');
        const stream = `dpopjti-${createHash('sha256').update(JSON.stringify([jkt, `jti-${i}`])).digest('base64url')}`;
        const expiresAt = new Date(T0 + 60_000 + i).toISOString();
        appends.push({ streamName: stream, expectedRevision: 'no_stream', events: [{ type: 'DpopProofUsed', data: { scope: jkt, jti: `jti-${i}`, expires_at: expiresAt, jkt, htm: 'POST', htu: 'https://issuer.example/token', iat: Math.floor(T0 / 1000) } }] });
      }
      await store.appendToStreams(appends);
    }
    console.log(`wrote ${RECORDS} replay records in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await store.close();
    const pagesBefore = livePages(dataDir);

    const reopened = await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
    const sweeper = new ExpiredRecordSweeper(reopened, JTI_REPLAY_RECORDS, { clock: () => new Date(T0 + 6 * 60_000 + RECORDS), graceMs: DEFAULT_EXPIRED_RECORD_GRACE_MS });
    const sweepStarted = performance.now();
    const swept = await sweeper.sweep();
    const seconds = (performance.now() - sweepStarted) / 1000;
    let left = 0;
    for await (const event of reopened.readAll({ filter: { streamCategories: ['dpopjti'] } })) if (event) left++;
    await reopened.close();
    console.log(`swept ${swept} records in ${seconds.toFixed(2)} s → ${Math.round(swept / seconds)} records/s; ${left} left`);
    console.log(`live pages of the store file: ${pagesBefore} before, ${livePages(dataDir)} after (freed pages are reused by later writes)`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
