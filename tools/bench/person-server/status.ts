/**
 * Section `status`: signed `POST /mission {"operation":"status","mission_s256"}` (spec 4.1) by each
 * mission's owning agent, `concurrency` callers in a closed loop for `seconds`, after a warm-up.
 * Callers are spread over the owner agents (caller i → agent i mod owners and its mission). Every request
 * carries its own signature (a new `nonce`, so the replay cache accepts it). By default the requests of
 * the measured window are signed BEFORE it starts (as many as the warm-up rate says the window needs,
 * +50 %; a caller that runs out signs on the fly, and the count is printed), so the load generator's
 * signing does not take CPU from the server during the window (both run on the same machine).
 * BENCH_PRESIGN=0 (or BENCH_SECONDS > 40) signs every request just before sending instead. Either way
 * the latency clock starts when the signed bytes are handed to the socket.
 */
import { cpuUsage } from 'node:process';
import { ascending, fixed, nowMicros, percentile, thousands, type BenchContext, type BenchSection } from './context.js';
import { signAsAgent, statusBody, type SignedRequest } from './signed-client.js';

const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const PRESIGN = process.env['BENCH_PRESIGN'] !== '0';

interface LoadResult {
  readonly latenciesMs: number[];
  readonly perSecond: number[];
  readonly failures: Map<string, { count: number; example: string }>;
  /** Signing done inside the window (on the fly). */
  readonly signMicros: number;
  readonly signed: number;
  readonly elapsedSeconds: number;
}

type Presigned = SignedRequest[][];

/** Requests signed ahead for each caller (`perCaller` each); `created` is now, valid for 60 s. */
function presign(context: BenchContext, perCaller: number): { requests: Presigned; micros: number } {
  const { fixture, sender, missions, options } = context;
  const started = nowMicros();
  const requests = Array.from({ length: options.concurrency }, (_, caller) => {
    const agent = fixture.owners[caller % fixture.owners.length]!;
    const body = statusBody(missions[caller % missions.length]!);
    return Array.from({ length: perCaller }, () => signAsAgent(sender.baseUrl, agent, { body }));
  });
  return { requests, micros: nowMicros() - started };
}

async function closedLoop(context: BenchContext, seconds: number, presigned?: Presigned): Promise<LoadResult> {
  const { fixture, sender, missions, options } = context;
  const latenciesMs: number[] = [];
  const perSecond: number[] = [];
  const failures = new Map<string, { count: number; example: string }>();
  let signMicros = 0;
  let signed = 0;
  const fail = (what: string, example: string): void => {
    const entry = failures.get(what) ?? { count: 0, example };
    entry.count++;
    failures.set(what, entry);
  };
  const started = nowMicros();
  const end = started + seconds * 1e6;
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, caller) => {
      const agent = fixture.owners[caller % fixture.owners.length]!;
      const body = statusBody(missions[caller % missions.length]!);
      const ready = presigned?.[caller] ?? [];
      while (nowMicros() < end) {
        let request = ready.pop();
        if (request === undefined) {
          const signing = nowMicros();
          request = signAsAgent(sender.baseUrl, agent, { body });
          signMicros += nowMicros() - signing;
          signed++;
        }
        const sent = nowMicros();
        try {
          const reply = await sender.send(request);
          const done = nowMicros();
          if (reply.status !== 200) fail(`HTTP ${reply.status}`, reply.body.toString('utf8').slice(0, 300));
          else if (!reply.body.includes('"mission_status":"active"')) fail('200 without "mission_status":"active"', reply.body.toString('utf8').slice(0, 300));
          else {
            latenciesMs.push((done - sent) / 1e3);
            const second = Math.floor((done - started) / 1e6);
            perSecond[second] = (perSecond[second] ?? 0) + 1;
          }
        } catch (error) {
          fail('transport error', (error as Error).message);
        }
      }
    }),
  );
  return { latenciesMs, perSecond, failures, signMicros, signed, elapsedSeconds: (nowMicros() - started) / 1e6 };
}

export const statusSection: BenchSection = {
  name: 'status',
  summary: 'signed status requests by the owning agents, N concurrent callers for a fixed time: requests/s, p50/p99, errors',
  async run(context) {
    const { options, fixture, server } = context;
    let warmRate = 0;
    if (WARMUP_SECONDS > 0) {
      const warm = await closedLoop(context, WARMUP_SECONDS);
      warmRate = warm.latenciesMs.length / warm.elapsedSeconds;
      if (warm.failures.size > 0) console.log(`  warm-up: ${[...warm.failures].map(([what, { count, example }]) => `${count} × ${what} (e.g. ${example})`).join('; ')}`);
    }
    // Signatures are accepted for 60 s after `created`: longer windows sign on the fly.
    const presigning = PRESIGN && options.seconds <= 40;
    if (PRESIGN && !presigning) console.log(`  BENCH_SECONDS ${options.seconds} > 40: requests are signed on the fly (pre-signed ones would leave the ±60 s window)`);
    const perCaller = presigning ? Math.ceil((Math.max(warmRate, 50) * options.seconds * 1.5) / options.concurrency) + 4 : 0;
    const ahead = presigning ? presign(context, perCaller) : undefined;
    const before = await server.metrics();
    const schedBefore = server.schedstat();
    const clientBefore = cpuUsage();
    const result = await closedLoop(context, options.seconds, ahead?.requests);
    const client = cpuUsage(clientBefore);
    const schedAfter = server.schedstat();
    const after = await server.metrics();

    const ok = result.latenciesMs.length;
    const errors = [...result.failures.values()].reduce((sum, { count }) => sum + count, 0);
    const sorted = ascending(result.latenciesMs);
    const rps = ok / result.elapsedSeconds;
    const serverCpuSeconds = after.cpuSeconds - before.cpuSeconds;
    const serverCpuMicrosPerRequest = (serverCpuSeconds * 1e6) / Math.max(1, ok + errors);
    const clientCpuSeconds = (client.user + client.system) / 1e6;
    console.log(
      `status (signed by the owning agent, ${options.concurrency} concurrent callers over ${fixture.owners.length} agents/missions, ${fixed(result.elapsedSeconds)} s after ${WARMUP_SECONDS} s warm-up):`,
    );
    console.log(`  ${thousands(rps)} requests/s, p50 ${fixed(percentile(sorted, 0.5), 2)} ms, p99 ${fixed(percentile(sorted, 0.99), 2)} ms, max ${fixed(sorted.at(-1) ?? Number.NaN, 2)} ms (${ok} × 200, ${errors} errors)`);
    for (const [what, { count, example }] of result.failures) console.log(`  ERROR ${count} × ${what}, e.g. ${example}`);
    const full = Array.from({ length: Math.floor(result.elapsedSeconds) }, (_, second) => result.perSecond[second] ?? 0);
    if (full.length >= 2) {
      const idle = full.filter((completions) => completions === 0).length;
      console.log(
        `  completions per second: first ${thousands(full[0]!)}, last ${thousands(full.at(-1)!)}, min ${thousands(Math.min(...full))}, max ${thousands(Math.max(...full))}` +
          (idle > 0 ? `; ${idle} whole second(s) with NO completion` : ''),
      );
    }
    console.log(
      `  server CPU ${fixed(serverCpuSeconds, 2)} s = ${fixed(serverCpuMicrosPerRequest, 0)} µs per request (user+system of the PS process over the window, /metrics); ` +
        `1/throughput = ${fixed(1e6 / rps, 0)} µs per request`,
    );
    if (schedBefore !== undefined && schedAfter !== undefined) {
      const onCpu = schedAfter.onCpuSeconds - schedBefore.onCpuSeconds;
      const waiting = schedAfter.waitingSeconds - schedBefore.waitingSeconds;
      console.log(
        `  PS event-loop thread over the ${fixed(result.elapsedSeconds)} s window (/proc schedstat): on a CPU ${fixed(onCpu, 2)} s, runnable but waiting for a CPU ${fixed(waiting, 2)} s, ` +
          `neither (blocked or idle) ${fixed(result.elapsedSeconds - onCpu - waiting, 2)} s`,
      );
    }
    const signing = ahead
      ? `${thousands(perCaller * options.concurrency)} requests signed before the window in ${fixed(ahead.micros / 1e6, 1)} s (${fixed(ahead.micros / (perCaller * options.concurrency), 0)} µs each: Ed25519 RFC 9421 + Content-Digest); ` +
        `${thousands(result.signed)} signed on the fly inside the window`
      : `every request signed on the fly just before sending: ${fixed(result.signMicros / 1e6, 2)} s of the window (${fixed(result.signMicros / Math.max(1, result.signed), 0)} µs each)`;
    console.log(`  load generator (this process, same machine as the PS): ${fixed(clientCpuSeconds, 2)} s CPU in the window; ${signing}`);
    const perMission = (ok + errors) / fixture.owners.length;
    console.log(`  each status appends MissionStatusRead: the ${fixture.owners.length} mission streams grew by ≈ ${thousands(perMission)} events each in the window`);
    console.log(`  PS resident memory ${fixed(after.residentBytes / 2 ** 20, 0)} MiB`);
    context.results.set('status.rps', rps);
    context.results.set('status.serverCpuMicrosPerRequest', serverCpuMicrosPerRequest);
    context.results.set('status.p50Ms', percentile(sorted, 0.5));
    context.results.set('status.errors', errors);
  },
};
