/**
 * Section `oracle` (spec 5.9 anti-oracle rule): `status` with a syntactically valid `mission_s256`
 * for an ABSENT mission (a fresh random digest each time) against one that EXISTS but belongs to another
 * agent (caller not authorized) — twice: a mission whose stream holds only its approval, and one with a
 * long history (BENCH_ORACLE_HISTORY status reads by its owner, as a busy mission has). One request at a
 * time, the kinds interleaved in rotating order, after a warm-up; each request signed before its clock
 * starts. Each round uses a new prober agent for its three probes, so that every probe is a first-time
 * (caller, reference) pair for every kind: the security audit writes one event per distinct probe and
 * suppresses repeats for 60 s, and an attacker's first look at a reference is what an oracle would use.
 * (With the same prober repeating the not-authorized references, only the absent probes — always a new
 * digest — were written, which showed up as a difference of the bench, not of the two answers.) It also
 * keeps every prober far below the PS's ProbeLimiter (60 failed lookups per caller and minute); the
 * per-caller and per-source rate limits are raised in the generated config.
 */
import { randomBytes } from 'node:crypto';
import { ascending, approvedMission, fixed, median, nowMicros, percentile, thousands, type BenchSection } from './context.js';
import type { BenchAgent } from './fixture.js';
import { jsonOf, signAsAgent, statusBody, type Reply } from './signed-client.js';

const SAMPLES = Number(process.env['BENCH_ORACLE_SAMPLES'] ?? 2000);
const WARMUP = Number(process.env['BENCH_ORACLE_WARMUP'] ?? 200);
const HISTORY = Number(process.env['BENCH_ORACLE_HISTORY'] ?? 1000);

interface Kind {
  readonly label: string;
  readonly reference: () => string;
  readonly latencies: number[];
  readonly statuses: Map<number, number>;
  readonly bodies: Map<string, number>;
  readonly headerShapes: Map<string, number>;
}

/** The header set with values, except the ones that differ per request by design (Date, X-Request-Id). */
function headerShape(reply: Reply): string {
  const entries = Object.entries(reply.headers)
    .filter(([name]) => name !== 'date')
    .map(([name, value]) => [name, name === 'x-request-id' ? '<per request>' : value] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(entries);
}

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export const oracleSection: BenchSection = {
  name: 'oracle',
  summary: 'spec 5.9: status for an absent mission vs. another agent\'s mission (fresh and with a long history): medians, p90, difference, byte-identical bodies',
  async run(context) {
    const { fixture, sender } = context;
    const base = sender.baseUrl;
    if (fixture.owners.length < 2) throw new Error('section oracle needs at least 2 owner agents');
    const fresh = await approvedMission(sender, fixture, fixture.owners[0]!, 'oracle target: approval only');
    const busy = await approvedMission(sender, fixture, fixture.owners[1]!, 'oracle target: long history');
    const historyStarted = nowMicros();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < HISTORY) jsonOf(await sender.send(signAsAgent(base, fixture.owners[1]!, { body: statusBody(busy) })), 200, 'history status read');
      }),
    );
    const historySeconds = (nowMicros() - historyStarted) / 1e6;

    const kinds: Kind[] = [
      { label: 'absent (random digest)', reference: () => randomBytes(32).toString('base64url') },
      { label: 'not authorized, 1-event mission', reference: () => fresh },
      { label: `not authorized, ${thousands(HISTORY + 1)}-event mission`, reference: () => busy },
    ].map((kind) => ({ ...kind, latencies: [], statuses: new Map(), bodies: new Map(), headerShapes: new Map() }));

    const rounds = WARMUP + SAMPLES;
    const probers: BenchAgent[] = [];
    for (let index = 0; index < rounds; index++) probers.push(await fixture.agent(`aauth:bench-prober-${index}@agents.bench.example`));

    for (let round = 0; round < rounds; round++) {
      const prober = probers[round]!;
      for (let position = 0; position < kinds.length; position++) {
        const kind = kinds[(round + position) % kinds.length]!;
        const request = signAsAgent(base, prober, { body: statusBody(kind.reference()) });
        const sent = nowMicros();
        const reply = await sender.send(request);
        const took = nowMicros() - sent;
        if (round < WARMUP) continue;
        kind.latencies.push(took);
        count(kind.statuses, reply.status);
        count(kind.bodies, reply.body.toString('base64'));
        count(kind.headerShapes, headerShape(reply));
      }
    }

    console.log(
      `anti-oracle timing (spec 5.9; ${thousands(SAMPLES)} samples per kind after ${thousands(WARMUP)} warm-up rounds, one request at a time, kinds interleaved in rotating order, ` +
        `a new prober agent per round, so every probe is a first look at its reference for its caller; long history built with ${thousands(HISTORY)} owner status reads in ${fixed(historySeconds)} s):`,
    );
    const reference = ascending(kinds[0]!.latencies);
    for (const kind of kinds) {
      const sorted = ascending(kind.latencies);
      const statuses = [...kind.statuses].map(([status, times]) => `${status} × ${times}`).join(', ');
      const difference = median(sorted) - median(reference);
      console.log(
        `  ${kind.label.padEnd(36)} median ${fixed(median(sorted), 0).padStart(5)} µs, p90 ${fixed(percentile(sorted, 0.9), 0).padStart(5)} µs, p10 ${fixed(percentile(sorted, 0.1), 0).padStart(5)} µs` +
          (kind === kinds[0] ? '' : `, median − absent: ${difference >= 0 ? '+' : ''}${fixed(difference, 0)} µs (${difference >= 0 ? '+' : ''}${fixed((100 * difference) / median(reference), 1)} %)`) +
          `; HTTP ${statuses}`,
      );
    }
    const allBodies = new Set(kinds.flatMap((kind) => [...kind.bodies.keys()]));
    const allShapes = new Set(kinds.flatMap((kind) => [...kind.headerShapes.keys()]));
    const sampleBody = Buffer.from([...allBodies][0] ?? '', 'base64').toString('utf8');
    console.log(`  bodies byte-identical across all ${thousands(SAMPLES * kinds.length)} responses: ${allBodies.size === 1 ? 'yes' : `NO (${allBodies.size} distinct bodies)`}: ${sampleBody}`);
    console.log(`  header sets and values identical (except Date and the random X-Request-Id): ${allShapes.size === 1 ? 'yes' : `NO (${allShapes.size} distinct)`}`);
    if (allShapes.size > 1) for (const shape of allShapes) console.log(`    ${shape}`);
  },
};
