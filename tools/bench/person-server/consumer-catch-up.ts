/**
 * Issue 15 item 2: how fast the Person Server's process managers (token revocation, mission expiry,
 * blob deletion — the real managers, loaded from the PS build) catch up with a store full of logged
 * status reads (spec 6: `MissionStatusRead` on the same `psmission-…` streams as the lifecycle events).
 *
 *   npm run build && node tools/bench/dist/person-server/consumer-catch-up.js
 *   BENCH_READS=200000 BENCH_MISSIONS=64 BENCH_UNFILTERED_SECONDS=20 node tools/bench/dist/person-server/consumer-catch-up.js
 *
 * Prints, for the three runners started together on the filled store: the time until all three have
 * planned every trigger event (backlog 0), and the store's events passed per second; then the same
 * managers without their `triggerTypes` (every event of the category handed to them, as before ADR 0055),
 * measured for at most BENCH_UNFILTERED_SECONDS, as events planned per second.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { EmbeddedEventStore, type EventData, type EventStore } from '@mission/event-store';
import { ProcessManagerRunner, type ProcessManager } from '@mission/es-kit';

const READS = Number(process.env['BENCH_READS'] ?? 200_000);
const MISSIONS = Number(process.env['BENCH_MISSIONS'] ?? 64);
const UNFILTERED_SECONDS = Number(process.env['BENCH_UNFILTERED_SECONDS'] ?? 20);
const root = resolve(process.argv[1] ?? '.', '../../../../..');

type Factories = {
  missionExpiryManager: (store: EventStore, clock: () => Date, ledger: unknown) => ProcessManager;
  blobDeletionManager: (store: EventStore) => ProcessManager;
  tokenRevocationManager: (revocations: unknown, settings: unknown) => ProcessManager;
};

async function loadManagers(): Promise<Factories> {
  const dist = join(root, 'apps/person-server/dist');
  const load = async (path: string) => (await import(pathToFileURL(join(dist, path)).href)) as Partial<Factories>;
  const factories = {
    ...(await load('lifecycle/mission-expiry.process-manager.js')),
    ...(await load('lifecycle/blob-deletion.process-manager.js')),
    ...(await load('revocation/token-revocation.process-manager.js')),
  };
  for (const name of ['missionExpiryManager', 'blobDeletionManager', 'tokenRevocationManager'] as const) {
    if (typeof factories[name] !== 'function') throw new Error(`the Person Server build has no export ${name}: run npm run build`);
  }
  return factories as Factories;
}

function managers(store: EventStore, factories: Factories): ProcessManager[] {
  const settings = { max_attempts: 8, initial_delay_ms: 1000, max_delay_ms: 60_000, lease_ms: 30_000 };
  return [
    factories.tokenRevocationManager({ round: async () => ({ remaining: 0 }) }, settings),
    factories.missionExpiryManager(store, () => new Date(), { state: async () => ({}) }),
    factories.blobDeletionManager(store),
  ];
}

async function fill(store: EventStore): Promise<number> {
  const s256 = (i: number) => createHash('sha256').update(`mission-${i}`).digest('base64url');
  const far = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const now = new Date().toISOString();
  let written = 0;
  for (let i = 0; i < MISSIONS; i++) {
    await store.appendToStream(`psmission-${s256(i)}`, [{ type: 'MissionApproved', data: { mission_s256: s256(i), expires_at: far } }]);
    written++;
  }
  const perBatch = 1000;
  for (let done = 0; done < READS; done += perBatch) {
    const mission = (done / perBatch) % MISSIONS;
    const events: EventData[] = Array.from({ length: Math.min(perBatch, READS - done) }, () => ({ type: 'MissionStatusRead', data: { mission_s256: s256(mission), caller: 'agent' } }));
    await store.appendToStream(`psmission-${s256(mission)}`, events);
    written += events.length;
  }
  for (let i = 0; i < MISSIONS / 2; i++) {
    await store.appendToStream(`psmission-${s256(i)}`, [{ type: 'MissionTerminated', data: { mission_s256: s256(i), occurred_at: now, reason: 'revoked' } }]);
    written++;
  }
  return written;
}

async function catchUp(store: EventStore, list: ProcessManager[], limitMs: number): Promise<{ ms: number; planned: number; done: boolean }> {
  let planned = 0;
  const counted = list.map((manager) => ({ ...manager, plan: (event: Parameters<ProcessManager['plan']>[0]) => (planned++, manager.plan(event)) }));
  const runners = counted.map((manager) => new ProcessManagerRunner(store, manager, { pollMs: 250 }));
  const started = performance.now();
  for (const runner of runners) await runner.start();
  let done = false;
  while (performance.now() - started < limitMs) {
    const backlogs = await Promise.all(runners.map((runner) => runner.backlog(0)));
    if (backlogs.every((backlog) => backlog === 0)) {
      done = true;
      break;
    }
    await new Promise((resume) => setTimeout(resume, 20));
  }
  const ms = performance.now() - started;
  const stopAt = performance.now();
  await Promise.all(runners.map((runner) => runner.stop()));
  console.log(`  stop() of the three runners took ${(performance.now() - stopAt).toFixed(0)} ms`);
  return { ms, planned, done };
}

async function main(): Promise<void> {
  const factories = await loadManagers();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ps-consumers-'));
  try {
    let store = await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
    const t0 = performance.now();
    const total = await fill(store);
    console.log(`store: ${total} events (${READS} MissionStatusRead over ${MISSIONS} missions, ${MISSIONS} approvals, ${MISSIONS / 2} terminations) written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const filtered = await catchUp(store, managers(store, factories), 60_000);
    console.log(
      `filtered (triggerTypes): 3 runners planned ${filtered.planned} trigger events and caught up in ${filtered.ms.toFixed(0)} ms` +
        ` → ${Math.round(total / (filtered.ms / 1000))} store events/s passed${filtered.done ? '' : ' (NOT caught up within 60 s)'}`,
    );

    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    store = await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
    await fill(store);
    const unfiltered = managers(store, factories).map((manager) => {
      const { triggerTypes, ...everyEvent } = manager;
      void triggerTypes;
      return everyEvent;
    });
    const before = await catchUp(store, unfiltered, UNFILTERED_SECONDS * 1000);
    console.log(
      `unfiltered (every psmission event to plan, as before ADR 0055): ${before.planned} events planned by 3 runners in ${before.ms.toFixed(0)} ms` +
        ` → ${Math.round(before.planned / 3 / (before.ms / 1000))} store events/s per runner${before.done ? ' (caught up)' : ` (stopped after ${UNFILTERED_SECONDS} s)`}`,
    );
    await store.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
