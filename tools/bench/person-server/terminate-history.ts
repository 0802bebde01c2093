/**
 * Issue 15 item 4: what `terminate` costs on a mission with N logged reads (spec 6: every authorized `status` is a
 * `MissionStatusRead` on `psmission-<s256>`) against a fresh mission — cold (the first decision after a restart) and
 * warm (the mission folded once since).
 *
 *   npm run build && node tools/bench/dist/person-server/terminate-history.js
 *   BENCH_TERMINATE_READS=1000000 BENCH_TERMINATE_SAMPLES=5 node tools/bench/dist/person-server/terminate-history.js
 *
 * The real Person Server (`apps/person-server/dist/bundle/main.mjs`, child process, embedded store) approves the missions
 * over HTTP; it is then stopped and the bench appends N `MissionStatusRead` events to each long mission straight
 * into its store — decided by the real `missionDecider` and hash-chained exactly as the server writes them (same
 * members, `sequence`, metadata, `prev_hash`), only without N HTTP requests. The server is started again on the same
 * DATA_DIR, config and keys; one `status` per long mission folds what was written behind its back (and snapshots it,
 * as a server logging the reads itself would have), and a second restart empties every in-memory cache again. Each
 * terminate is then a signed `POST /mission` through the real handler. Printed: per kind the terminate latency (client wall time, signing excluded; median of
 * BENCH_TERMINATE_SAMPLES fresh missions, one long mission per cold/warm), the long/fresh ratios, and the cold `status`
 * that warms the long mission.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decider } from '@mission/decider';
import { aggregateStream, prepareAppend, type AggregateState, type CommandContext } from '@mission/es-kit';
import { EmbeddedEventStore, type EventData } from '@mission/event-store';
import { missionDecider, missionStreamName, type MissionEvent, type MissionState, type ReadMissionStatus } from '@mission/ps-domain';
import { approvedMission, ascending, fixed, median, thousands } from './context.js';
import { BENCH_RATE_LIMITS, BenchFixture, type BenchAgent } from './fixture.js';
import { benchPort, PersonServerProcess } from './server.js';
import { HttpSender, jsonOf, signAsAgent, signAsPrincipal, statusBody } from './signed-client.js';

/** 100,000 keeps the run near a minute (the fill costs about 0.1 ms an event: deciding, hashing, writing); set 1,000,000 for the figure. */
const READS = Number(process.env['BENCH_TERMINATE_READS'] ?? 100_000);
const SAMPLES = Number(process.env['BENCH_TERMINATE_SAMPLES'] ?? 3);
/** Events per append: the store refuses appends over 1 MB (a read event is about 620 bytes). */
const BATCH = 1_500;
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** `count` status reads by `agent` decided one after another over the evolving state: one append's worth of events. */
function readsDecider(count: number): Decider<ReadMissionStatus, MissionEvent, MissionState> {
  return {
    ...missionDecider,
    decide: (command, state) => {
      const events: MissionEvent[] = [];
      let current = state;
      for (let index = 0; index < count; index++) {
        const decided = missionDecider.decide(command, current);
        events.push(...decided);
        current = decided.reduce(missionDecider.evolve, current);
      }
      return events;
    },
  };
}

/** Appends `reads` MissionStatusRead events of the owning agent to the mission, as the server's decider writes them. */
async function logReads(store: EmbeddedEventStore, s256: string, agent: BenchAgent, reads: number): Promise<void> {
  const stream = missionStreamName(s256);
  let head: AggregateState<MissionState> = await aggregateStream(store, stream, missionDecider);
  for (let done = 0; done < reads; done += BATCH) {
    const now = new Date();
    const count = Math.min(BATCH, reads - done);
    const context: CommandContext = { correlationId: randomUUID(), causationId: `status:${randomUUID()}`, actor: { id: agent.id, role: 'agent' }, now };
    const prepared = prepareAppend(stream, readsDecider(count), head, { type: 'ReadMissionStatus', caller: { role: 'agent', id: agent.id }, now }, context, { hashChain: true });
    await store.appendToStream(stream, prepared.events as EventData[], { expectedRevision: head.revision });
    // The next batch chains onto the last event as recorded.
    head = await tail(store, stream, prepared.newEvents.reduce(missionDecider.evolve, head.state));
  }
}

async function tail(store: EmbeddedEventStore, stream: string, state: MissionState): Promise<AggregateState<MissionState>> {
  for await (const last of store.readStream(stream, { direction: 'backwards', maxCount: 1 })) return { state, revision: last.revision, lastEvent: last };
  throw new Error(`${stream} is empty`);
}

const requestId = (): string => randomBytes(24).toString('base64url');

const fixture = await BenchFixture.create(2);
const [owner] = fixture.owners as [BenchAgent];
let server = await PersonServerProcess.start({
  repositoryRoot,
  config: fixture.config(),
  port: benchPort(),
  logLevel: process.env['BENCH_LOG_LEVEL'] ?? 'warn',
});
let sender = new HttpSender(server.baseUrl, 4);
let failed = false;
try {
  const approve = async (label: string): Promise<string> => approvedMission(sender, fixture, owner, `bench terminate ${label}`);
  const freshCold: string[] = [];
  const freshWarm: string[] = [];
  for (let index = 0; index < SAMPLES; index++) freshCold.push(await approve(`fresh cold ${index}`));
  for (let index = 0; index < SAMPLES; index++) freshWarm.push(await approve(`fresh warm ${index}`));
  const [longCold, longWarm, warmUp] = [await approve('long cold'), await approve('long warm'), await approve('jit warm-up')];

  const paused = await server.pause();
  sender.close();
  const filling = Date.now();
  const store = await EmbeddedEventStore.open({ dataDir: server.dataDir, synchronous: 'NORMAL' });
  for (const s256 of [longCold, longWarm]) await logReads(store, s256, owner, READS);
  await store.close();
  const fillSeconds = (Date.now() - filling) / 1000;
  server = await paused.resume();
  sender = new HttpSender(server.baseUrl, 4);

  const timed = async (body: string, expected: number, what: string): Promise<number> => {
    const request = signAsPrincipal(sender.baseUrl, fixture.person, { body });
    const started = performance.now();
    const reply = await sender.send(request);
    const ms = performance.now() - started;
    jsonOf(reply, expected, what);
    return ms;
  };
  const status = (s256: string): Promise<number> => timed(statusBody(s256), 200, 'status');
  // A server that logged the reads itself kept a snapshot at most 500 events behind (ADR 0059); reads written straight
  // into the store have none, so the first decision after the fill folds them all once (what an upgrade costs once
  // per long mission) and snapshots the fold. Then the restart that makes every measured decision cold.
  const firstFold = [await status(longCold), await status(longWarm)];
  server = await (await server.pause()).resume();
  sender.close();
  sender = new HttpSender(server.baseUrl, 4);

  const terminate = (s256: string): Promise<number> => timed(JSON.stringify({ operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() }), 200, 'terminate');
  // JIT and connection warm-up on a mission no number is taken from (its own fold does not warm the others).
  await status(warmUp);
  await terminate(warmUp);

  const coldFresh: number[] = [];
  for (const s256 of freshCold) coldFresh.push(await terminate(s256));
  const coldLong = await terminate(longCold);
  const warmFresh: number[] = [];
  for (const s256 of freshWarm) {
    await status(s256);
    warmFresh.push(await terminate(s256));
  }
  const coldStatusLong = await status(longWarm);
  const warmLong = await terminate(longWarm);
  const freshColdMs = median(ascending(coldFresh));
  const freshWarmMs = median(ascending(warmFresh));
  const check = jsonOf(await sender.send(signAsAgent(sender.baseUrl, owner, { body: statusBody(longCold) })), 200, 'status after terminate');
  if (check['mission_status'] !== 'terminated') throw new Error(`the long mission reads ${String(check['mission_status'])} after terminate`);

  console.log(`terminate vs logged reads (issue 15 item 4): node ${process.version}, embedded store, PS restarted after the fill (cold caches)`);
  console.log(`  ${thousands(READS)} MissionStatusRead events on each of 2 long missions, written in ${fixed(fillSeconds)} s straight into the store (real decider, hash chain)`);
  console.log(`  terminate, fresh mission, cold: median ${fixed(freshColdMs, 2)} ms of ${SAMPLES} (${coldFresh.map((ms) => fixed(ms, 2)).join(', ')})`);
  console.log(`  terminate, ${thousands(READS)} reads, cold: ${fixed(coldLong, 2)} ms = ${fixed(coldLong / freshColdMs, 2)} × fresh cold`);
  console.log(`  terminate, fresh mission, warm: median ${fixed(freshWarmMs, 2)} ms of ${SAMPLES} (${warmFresh.map((ms) => fixed(ms, 2)).join(', ')})`);
  console.log(`  terminate, ${thousands(READS)} reads, warm: ${fixed(warmLong, 2)} ms = ${fixed(warmLong / freshWarmMs, 2)} × fresh warm`);
  console.log(`  (the status that warmed the long mission, cold: ${fixed(coldStatusLong, 2)} ms; the first status after the fill, before any snapshot: ${firstFold.map((ms) => fixed(ms)).join(' / ')} ms; rate limits raised: ${thousands(BENCH_RATE_LIMITS.per_caller_per_minute)}/caller/min)`);
} catch (error) {
  failed = true;
  console.error(error);
  console.error(`--- person-server log (tail) ---\n${server.logTail()}`);
} finally {
  sender.close();
  await server.stop(process.env['BENCH_KEEP'] === '1');
}
if (failed) process.exitCode = 1;
