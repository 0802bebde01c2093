/**
 * Issue 15 item 3: the Person Server's memory under an hour of `status` polling.
 *
 *   npm run build && node tools/bench/dist/person-server/soak.js
 *   BENCH_NODE_OPTIONS=--max-old-space-size=160 BENCH_SOAK_SECONDS=180 node tools/bench/dist/person-server/soak.js
 *
 * Starts the real PS (`apps/person-server/dist/bundle/main.mjs`, child process, embedded store in a fresh temp DATA_DIR;
 * server, fixture and signed client of the bench in this folder) with BENCH_NODE_OPTIONS as its NODE_OPTIONS,
 * approves BENCH_MISSIONS (64) missions spread over BENCH_OWNERS (8) owner agents, then polls signed `status`
 * (spec 4.1; each one appends a `MissionStatusRead`) at BENCH_RATE (100) requests/s, open loop, with at most
 * BENCH_CONCURRENCY (32) in flight, for BENCH_SOAK_SECONDS (3600). Every BENCH_SAMPLE_SECONDS (10) it samples
 * the PS's VmRSS / VmHWM (/proc) and heap (/metrics); one line a minute; after the load, BENCH_AFTER_SECONDS
 * (60) idle, then the summary. Any non-200 is printed at once and fails the run (exit 1). BENCH_KEEP=1 keeps the
 * temp directory; BENCH_LOG_LEVEL is the PS's LOG_LEVEL (default info, as `npm start`).
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { cpuUsage, memoryUsage } from 'node:process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedEventStore } from '@mission/event-store';
import { missionStreamName } from '@mission/ps-domain';
import { approvedMission, fixed, nowMicros, percentile, thousands } from './context.js';
import { BENCH_RATE_LIMITS, BenchFixture } from './fixture.js';
import { mib, sampleMemory, type MemorySample } from './memory-sampler.js';
import { PacedLoad, type PacedTarget } from './paced-load.js';
import { benchPort, PersonServerProcess } from './server.js';
import { HttpSender, statusBody } from './signed-client.js';
import { summarizeSoak } from './soak-summary.js';

const numberOf = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const MISSIONS = numberOf('BENCH_MISSIONS', 64);
const OWNERS = numberOf('BENCH_OWNERS', 8);
const CONCURRENCY = numberOf('BENCH_CONCURRENCY', 32);
const RATE = numberOf('BENCH_RATE', 100);
const SECONDS = numberOf('BENCH_SOAK_SECONDS', 3600);
const SAMPLE_SECONDS = numberOf('BENCH_SAMPLE_SECONDS', 10);
const AFTER_SECONDS = numberOf('BENCH_AFTER_SECONDS', 60);
const NODE_OPTIONS = process.env['BENCH_NODE_OPTIONS'] ?? '';
const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'info';
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

// Agent Tokens outlive the run (setup, load, the idle minute, margin).
const fixture = await BenchFixture.create(OWNERS, SECONDS + AFTER_SECONDS + 1800);
const server = await PersonServerProcess.start({
  repositoryRoot,
  config: fixture.config(),
  port: benchPort(),
  logLevel: LOG_LEVEL,
  ...(NODE_OPTIONS !== '' ? { nodeOptions: NODE_OPTIONS } : {}),
});
const pid = server.pid!;
const metricsUrl = `${server.baseUrl}/metrics`;
const sender = new HttpSender(server.baseUrl, Math.max(CONCURRENCY, 8));
const samples: MemorySample[] = [];
let failed = false;
let keepDir = process.env['BENCH_KEEP'] === '1';
try {
  console.log(`Person Server soak: node ${process.version}, ${cpus().length} CPUs, load average ${load()} at the start, ${new Date().toISOString()}`);
  console.log(
    `  PS = node apps/person-server/dist/bundle/main.mjs (pid ${pid}) with NODE_OPTIONS "${NODE_OPTIONS}" at ${server.baseUrl}, embedded SQLite store in ${server.dataDir}, LOG_LEVEL ${LOG_LEVEL} to ${server.logFile}`,
  );
  console.log(`  rate limits raised to ${BENCH_RATE_LIMITS.per_caller_per_minute.toLocaleString('en')} per caller and minute (the bench's config)`);
  const missions: string[] = [];
  const targets: PacedTarget[] = [];
  for (let index = 0; index < MISSIONS; index++) {
    const agent = fixture.owners[index % fixture.owners.length]!;
    const s256 = await approvedMission(sender, fixture, agent, `soak mission ${index} of ${agent.id}`);
    missions.push(s256);
    targets.push({ agent, body: statusBody(s256) });
  }
  console.log(`  ${MISSIONS} missions approved over ${fixture.owners.length} owner agents; load: signed status, ${RATE} req/s open loop, ≤ ${CONCURRENCY} in flight, ${SECONDS} s, then ${AFTER_SECONDS} s idle; samples every ${SAMPLE_SECONDS} s`);

  const loadStart = nowMicros();
  const since = (): number => (nowMicros() - loadStart) / 1e6;
  let phase: MemorySample['phase'] = 'before';
  const sample = async (): Promise<MemorySample> => {
    const taken = await sampleMemory(pid, metricsUrl, since(), phase);
    samples.push(taken);
    return taken;
  };
  const baseline = await sample();
  console.log(`  before the load: RSS ${mib(baseline.rssBytes)} MiB, VmHWM ${mib(baseline.hwmBytes)} MiB, heap used ${mib(baseline.heapUsedBytes)} / total ${mib(baseline.heapTotalBytes)} MiB`);
  phase = 'load';

  const paced = new PacedLoad({
    sender,
    targets,
    rate: RATE,
    concurrency: CONCURRENCY,
    seconds: SECONDS,
    onNewFailure: (what, example) => console.error(`  ERROR at ${fixed(since(), 0)} s: ${what}: ${example}`),
  });
  const sampler = setInterval(() => void sample(), SAMPLE_SECONDS * 1000);
  let minuteFrom = 0;
  const minuteLine = (): void => {
    const window = paced.takeWindow();
    const now = since();
    const recent = samples.filter((taken) => taken.at >= minuteFrom && taken.phase === 'load');
    const last = samples.at(-1)!;
    const rss = recent.map((taken) => taken.rssBytes);
    console.log(
      `  [${fixed(now / 60, 1).padStart(5)} min] ${thousands(paced.ok + paced.errors).padStart(9)} requests (${fixed(window.ok / Math.max(1e-9, now - minuteFrom), 1)}/s), ${paced.errors} errors; ` +
        `p50 ${fixed(percentile(window.latenciesMs, 0.5), 1)} p99 ${fixed(percentile(window.latenciesMs, 0.99), 1)} max ${fixed(window.latenciesMs.at(-1) ?? Number.NaN, 0)} ms, lag ≤ ${fixed(window.maxLagMs, 0)} ms; ` +
        `PS RSS ${mib(last.rssBytes)} MiB (${mib(Math.min(...rss))}–${mib(Math.max(...rss))} this minute), HWM ${mib(last.hwmBytes)}, heap ${mib(last.heapUsedBytes)}/${mib(last.heapTotalBytes)}, external ${mib(last.externalBytes)} MiB; ` +
        `appends ${thousands(last.appends)}; load avg ${load()}; generator RSS ${mib(memoryUsage.rss())} MiB`,
    );
    minuteFrom = now;
  };
  const minutes = setInterval(minuteLine, 60_000);
  const generatorCpu = cpuUsage();
  await paced.run();
  const generatorUsed = cpuUsage(generatorCpu);
  const generatorCpuSeconds = (generatorUsed.user + generatorUsed.system) / 1e6;
  const loadSeconds = since();
  clearInterval(minutes);
  await sample();
  minuteLine();
  phase = 'after';
  await sleep(AFTER_SECONDS * 1000);
  clearInterval(sampler);
  const idle = await sample();
  console.log(`  ${AFTER_SECONDS} s after the load stopped: RSS ${mib(idle.rssBytes)} MiB, heap used ${mib(idle.heapUsedBytes)} MiB, VmHWM ${mib(idle.hwmBytes)} MiB`);

  // Exact event counts from the store itself, once the server has stopped (the embedded store has one writer).
  await server.stop(true);
  const store = await EmbeddedEventStore.open({ dataDir: server.dataDir, synchronous: 'NORMAL' });
  let missionEvents = 0;
  for (const s256 of missions) {
    const revision = await store.streamRevision(missionStreamName(s256));
    if (revision !== 'no_stream') missionEvents += Number(revision) + 1;
  }
  const head = await store.headPosition();
  await store.close();

  failed = paced.errors > 0;
  summarizeSoak({
    samples,
    ok: paced.ok,
    errors: paced.errors,
    failures: paced.failures,
    late: paced.late,
    maxLagMs: paced.maxLagMs,
    loadSeconds,
    targetRate: RATE,
    missionEvents,
    storeHead: head === undefined ? 0 : Number(head.commit),
    generatorCpuSeconds,
    afterSeconds: AFTER_SECONDS,
    nodeOptions: NODE_OPTIONS,
  });
} catch (error) {
  failed = true;
  keepDir = true;
  console.error(error);
  console.error(`--- person-server log (tail) ---\n${server.logTail()}`);
} finally {
  sender.close();
  await server.stop(true);
  if (keepDir) console.log(`kept ${server.tempDir}`);
  else rmSync(server.tempDir, { recursive: true, force: true });
}
if (failed) {
  console.error('SOAK FAILED (see the errors above)');
  process.exitCode = 1;
}
