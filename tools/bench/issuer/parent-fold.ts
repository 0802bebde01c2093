/**
 * Issue 15 ("flat costs however long the history grows"), ADR 0080: what folding a parent mission costs with 0, 1,000
 * and 10,000 attached children. Seeds parents straight into an embedded store (MissionCreated, then one
 * ChildMissionAttached per child, as child creation writes them), restarts the store, then measures
 * (a) the cold fold: the whole stream read and folded (`aggregateStream`: a cold `MissionLineage` load, the cascade's
 *     read of a cascaded child that has children of its own), median of 5;
 * (b) one more attachment caught up on the cached parent (`AggregateCache.load` after one appended
 *     ChildMissionAttached: what each further child creation adds to the parent's fold);
 * (c) the fan-out count a child creation runs per justifying entry (`activeChildCount`, spec 2.4 rule 2) on a
 *     long-lived parent: N children of which all but 12 reached a terminal state (ChildMissionDetached);
 * (d) on the same parent, the slot release of an open child (DetachChild, what child_slot_release does when a child
 *     ends): with a full fold of the parent (`handleCommand`, 2 releases) and over its cached fold (`MissionLineage`
 *     → `AggregateCache.handle`, 10 releases).
 *
 *   npm run build && node tools/bench/dist/issuer/parent-fold.js
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, type EventData, type EventStore } from '@mission/event-store';
import { AggregateCache, aggregateStream, handleCommand, type CommandContext } from '@mission/es-kit';
import { activeChildCount, missionDecider, missionExists, missionIdFromBytes, missionStreamName, type DetachChild, type MissionCommand, type MissionEvent, type MissionState } from '@mission/issuer-domain';
import { cpuMs } from './cpu-time.js';

const CHILDREN = [0, 1_000, 10_000];
const COLD_FOLDS = 5;
const CAUGHT_UP_ATTACHMENTS = 200;
const LONG_LIVED_OPEN = 12;
const AT = '2026-11-27T00:00:00.000Z';
const ACTOR = { id: 'demo-agent', role: 'client' };

function created(missionId: string): EventData {
  return {
    type: 'MissionCreated',
    data: {
      mission_id: missionId, issuer: 'https://issuer.example', client_id: 'demo-agent', state: 'active', version: 1, occurred_at: AT, expires_at: '2026-11-28T00:00:00.000Z',
      authority_set: [{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: {} } }],
      authority_hash: 'bench', intent: { description: 'bench parent', resources: ['https://erp.example.com/invoices'] }, approved_by: { id: 'alice', role: 'person' },
    },
  };
}

function detached(missionId: string, child: string): EventData {
  return { type: 'ChildMissionDetached', data: { mission_id: missionId, child_mission_id: child, state: 'completed', occurred_at: AT } };
}

function attached(missionId: string, child = missionIdFromBytes(randomBytes(16))): EventData {
  return {
    type: 'ChildMissionAttached',
    data: {
      mission_id: missionId, child_mission_id: child, child_client_id: 'worker-agent', parent_entry_indexes: [0], occurred_at: AT, actor: ACTOR,
      grant_id: randomUUID(), grant_expires_at: AT, cascade_mode: 'immediate',
    },
  };
}

/** The parent with `children` attachments; with `open`, all but `open` of them detached again. */
async function seed(store: EventStore, missionId: string, children: number, open?: number): Promise<string[]> {
  const events: EventData[] = [created(missionId)];
  const openIds: string[] = [];
  let revision: bigint | 'no_stream' = 'no_stream';
  for (let i = 0; i <= children; i++) {
    if (i < children) {
      const child = missionIdFromBytes(randomBytes(16));
      events.push(attached(missionId, child));
      if (open !== undefined && i < children - open) events.push(detached(missionId, child));
      else openIds.push(child);
    }
    if (events.length >= 500 || (i === children && events.length > 0)) {
      revision = (await store.appendToStream(missionStreamName(missionId), events.splice(0), { expectedRevision: revision })).nextExpectedRevision;
    }
  }
  return openIds;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-parent-fold-'));
  try {
    const seeding = await EmbeddedEventStore.open({ dataDir: dir });
    const parents = new Map<number, string>();
    const longLived = new Map<number, { id: string; open: string[] }>();
    for (const n of CHILDREN) {
      const id = missionIdFromBytes(randomBytes(16));
      await seed(seeding, id, n);
      parents.set(n, id);
      const other = missionIdFromBytes(randomBytes(16));
      longLived.set(n, { id: other, open: await seed(seeding, other, n + LONG_LIVED_OPEN, LONG_LIVED_OPEN) });
    }
    await seeding.close();
    // A restart: a fresh store handle and an empty cache.
    const store = await EmbeddedEventStore.open({ dataDir: dir });
    const cache = new AggregateCache(store, missionDecider);
    // Warm-up (JIT), on a parent of its own: the first figures of a cold process would fall on the first row.
    const warmUp = missionIdFromBytes(randomBytes(16));
    await seed(store, warmUp, 10);
    await measure(store, cache, warmUp, 10);
    console.log('children  cold fold of the parent: CPU ms (median of 5), µs per event  one more attachment caught up: CPU µs, ratio to no children');
    let fresh: number | undefined;
    for (const n of CHILDREN) {
      const { cold, caughtUp } = await measure(store, cache, parents.get(n)!, n);
      fresh ??= caughtUp;
      console.log(`${String(n).padStart(8)}  ${cold.toFixed(2).padStart(47)}, ${((cold * 1000) / (n + 1)).toFixed(1).padStart(5)}  ${caughtUp.toFixed(0).padStart(50)}, ${(caughtUp / fresh).toFixed(2)}`);
    }
    console.log(`terminal children  fan-out count on a parent with ${LONG_LIVED_OPEN} open children (µs per activeChildCount, over ≥ 200 ms of calls)`);
    const states = await Promise.all(CHILDREN.map(async (n) => (await cache.load(missionStreamName(longLived.get(n)!.id))).state));
    for (const [index, n] of CHILDREN.entries()) {
      const state = states[index]!;
      if (activeChildCount(state, 0) !== LONG_LIVED_OPEN) throw new Error(`counted ${activeChildCount(state, 0)} open children, not ${LONG_LIVED_OPEN}`);
      console.log(`${String(n).padStart(17)}  ${fanOutMicros(state).toFixed(2).padStart(40)}`);
    }
    console.log('terminal children  slot release of an open child (DetachChild): CPU ms with a full fold (handleCommand), µs over the cached fold (MissionLineage)');
    for (const n of CHILDREN) {
      const { id, open } = longLived.get(n)!;
      const stream = missionStreamName(id);
      const context = (): CommandContext => ({ correlationId: randomUUID(), causationId: 'bench', actor: ACTOR, now: new Date() });
      const detach = (child: string): DetachChild => ({ type: 'DetachChild', childMissionId: child, state: 'completed', now: new Date() });
      let before = process.cpuUsage();
      for (const child of open.slice(0, 2)) await handleCommand(store, stream, missionDecider, detach(child), context(), { hashChain: true });
      const fullFoldMs = cpuMs(before) / 2;
      const parents = new AggregateCache(store, missionDecider);
      await parents.load(stream);
      before = process.cpuUsage();
      for (const child of open.slice(2)) await parents.handle(stream, detach(child), context(), { hashChain: true });
      const cachedMicros = (cpuMs(before) * 1000) / (open.length - 2);
      console.log(`${String(n).padStart(17)}  ${fullFoldMs.toFixed(2).padStart(47)}, ${cachedMicros.toFixed(0)}`);
    }
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Microseconds per `activeChildCount` call: calls in rounds of doubling size until a round lasts 200 ms (a synchronous loop: wall time is CPU time). */
function fanOutMicros(state: MissionState): number {
  for (let calls = 16; ; calls *= 2) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) activeChildCount(state, 0);
    const elapsed = Number(process.hrtime.bigint() - started) / 1000;
    if (elapsed >= 200_000) return elapsed / calls;
  }
}

/** The median CPU ms of a whole fold of the parent, and the CPU µs of catching up one more attachment on the cached parent. */
async function measure(store: EventStore, cache: AggregateCache<MissionCommand, MissionEvent, MissionState>, missionId: string, n: number): Promise<{ cold: number; caughtUp: number }> {
  const stream = missionStreamName(missionId);
  const colds: number[] = [];
  for (let i = 0; i < COLD_FOLDS; i++) {
    const before = process.cpuUsage();
    const { state } = await aggregateStream(store, stream, missionDecider);
    colds.push(cpuMs(before));
    if (!missionExists(state) || state.children.size !== n) throw new Error(`parent with ${n} children folded to ${missionExists(state) ? state.children.size : 'no mission'}`);
  }
  await cache.load(stream);
  let revision = await store.streamRevision(stream);
  let caughtUpMs = 0;
  for (let i = 0; i < CAUGHT_UP_ATTACHMENTS; i++) {
    revision = (await store.appendToStream(stream, [attached(missionId)], { expectedRevision: revision })).nextExpectedRevision;
    const before = process.cpuUsage();
    await cache.load(stream);
    caughtUpMs += cpuMs(before);
  }
  return { cold: median(colds), caughtUp: (caughtUpMs * 1000) / CAUGHT_UP_ATTACHMENTS };
}

await main();
