/**
 * Issue 15, scale item 1: does a refresh cost the same on a grant rotated 1,000 or 100,000 times as on a fresh one?
 * Seeds grants with N rotations straight into an embedded store (the events the token endpoint writes), then
 * measures, for each N, (a) the first refresh after a restart (the grant folded once from the store) and (b) the
 * steady-state refresh (AggregateCache catch-up + decide + append), the same path `TokenIssuance` takes.
 *
 *   npm run build && node tools/bench/dist/issuer/refresh-chain.js
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, type EventData, type EventStore } from '@mission/event-store';
import { AggregateCache, aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import { grantDecider, grantIdFromBytes, grantStreamName, type GrantCommand, type GrantEvent, type GrantState } from '@mission/issuer-domain';
import { cpuMs } from './cpu-time.js';

const CHAINS = [0, 1_000, 100_000];
const STEADY_REFRESHES = 200;
/** The full-fold path takes seconds per refresh at 100,000 rotations: fewer samples there. */
const steadyRefreshes = (rotations: number): number => (process.env['BENCH_FULL_FOLD'] === '1' && rotations >= 10_000 ? 5 : STEADY_REFRESHES);
const CLIENT = 'demo-agent';
const JKT = hash('bench dpop key');
const MISSION = 'msn_' + Buffer.alloc(16, 7).toString('base64url');

function hash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

const context = (): CommandContext => ({ correlationId: randomUUID(), causationId: 'bench', actor: { id: CLIENT, role: 'client' }, now: new Date() });

/** A redeemed code grant with `rotations` rotations; returns the current refresh-token hash. */
async function seed(store: EventStore, grantId: string, rotations: number): Promise<string> {
  const at = new Date().toISOString();
  const events: EventData[] = [
    { type: 'AuthorizationCodeIssued', data: { grant_id: grantId, mission_id: MISSION, client_id: CLIENT, code_hash: hash(`${grantId} code`), redirect_uri: 'http://127.0.0.1:9000/cb', code_challenge: hash('pkce'), code_challenge_method: 'S256', expires_at: new Date(Date.now() + 60_000).toISOString(), occurred_at: at } },
    { type: 'AuthorizationCodeRedeemed', data: { grant_id: grantId, client_id: CLIENT, jkt: JKT, occurred_at: at } },
    { type: 'RefreshTokenIssued', data: { grant_id: grantId, refresh_token_hash: hash(`${grantId} 0`), jkt: JKT, occurred_at: at } },
  ];
  let revision: bigint | 'no_stream' = 'no_stream';
  const flush = async (): Promise<void> => {
    if (events.length === 0) return;
    const result = await store.appendToStream(grantStreamName(grantId), events.splice(0), { expectedRevision: revision });
    revision = result.nextExpectedRevision;
  };
  for (let i = 1; i <= rotations; i++) {
    events.push({ type: 'RefreshTokenRotated', data: { grant_id: grantId, previous_hash: hash(`${grantId} ${i - 1}`), refresh_token_hash: hash(`${grantId} ${i}`), jkt: JKT, occurred_at: at } });
    if (events.length >= 500) await flush();
  }
  await flush();
  return hash(`${grantId} ${rotations}`);
}

/** BENCH_FULL_FOLD=1: the path before issue 15 (the grant folded from its start, then folded again by handleCommand). */
const FULL_FOLD = process.env['BENCH_FULL_FOLD'] === '1';

async function refresh(store: EventStore, cache: AggregateCache<GrantCommand, GrantEvent, GrantState>, grantId: string, current: string): Promise<string> {
  const next = hash(randomBytes(16).toString('base64url'));
  const command: GrantCommand = { type: 'RotateRefreshToken', refreshTokenHash: current, newRefreshTokenHash: next, clientId: CLIENT, dpopJkt: JKT, now: new Date() };
  if (FULL_FOLD) {
    await aggregateStream(store, grantStreamName(grantId), grantDecider);
    await handleCommand(store, grantStreamName(grantId), grantDecider, command, context());
  } else {
    await cache.handle(grantStreamName(grantId), command, context());
  }
  return next;
}


async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-refresh-chain-'));
  try {
    const seeding = await EmbeddedEventStore.open({ dataDir: dir });
    const grants = new Map<number, { id: string; current: string }>();
    for (const n of CHAINS) {
      const id = grantIdFromBytes(randomBytes(16));
      grants.set(n, { id, current: await seed(seeding, id, n) });
    }
    await seeding.close();
    // A restart: a fresh store handle and an empty cache.
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    const cache = new AggregateCache(store, grantDecider);
    console.log(FULL_FOLD ? 'path: full fold per refresh (before issue 15)' : 'path: AggregateCache (catch-up only)');
    console.log('rotations  first refresh after restart (CPU ms)  steady refresh (CPU µs per refresh)     ratio to fresh');
    let fresh = 0;
    for (const n of CHAINS) {
      const grant = grants.get(n)!;
      const cold = process.cpuUsage();
      grant.current = await refresh(store, cache, grant.id, grant.current);
      const coldMs = cpuMs(cold);
      const steady = process.cpuUsage();
      for (let i = 0; i < STEADY_REFRESHES; i++) grant.current = await refresh(store, cache, grant.id, grant.current);
      const steadyUs = (cpuMs(steady) * 1000) / steadyRefreshes(n);
      if (n === 0) fresh = steadyUs;
      console.log(`${String(n).padStart(9)}  ${coldMs.toFixed(1).padStart(40)}  ${steadyUs.toFixed(0).padStart(38)}  ${(steadyUs / fresh).toFixed(2).padStart(14)}`);
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
