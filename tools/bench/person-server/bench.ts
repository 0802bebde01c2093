/**
 * Person Server benchmark (a script, not a test): `npm run bench:person-server` (builds first), or
 * `node tools/bench/dist/person-server/bench.js [sections]`.
 *
 * Starts the built Person Server (`apps/person-server/dist/bundle/main.mjs`, what `npm start` runs) as a child
 * process on 127.0.0.1 with the embedded SQLite store in a fresh temp DATA_DIR and a generated
 * CONFIG_FILE (a person, an agent provider with inline JWKS, all keys generated for this run; rate
 * limits at the schema maxima so the bench is not throttled), creates one approved mission per owner
 * agent (proposal → approval → poll), and runs the selected sections in order. This process is the
 * load generator: it signs and sends; the server has its own process and event loop.
 *
 * Sections (BENCH_SECTIONS or the first argument, comma-separated, default all in this order): see
 * SECTIONS below; a new one is a file exporting a {@link BenchSection} plus one line here.
 * Options: BENCH_CONCURRENCY (32), BENCH_SECONDS (10), BENCH_OWNERS (agents holding missions, 8),
 * BENCH_WARMUP_SECONDS (2), BENCH_VERIFY_N (5000), BENCH_ORACLE_SAMPLES (2000), BENCH_ORACLE_WARMUP (200),
 * BENCH_ORACLE_HISTORY (1000), BENCH_LOG_LEVEL (the PS's LOG_LEVEL, default info as `npm start`),
 * BENCH_KEEP=1 (keep the temp directory with DATA_DIR, config and the PS log), BENCH_PROFILE_DIR (run the PS
 * with `--cpu-prof`; its V8 CPU profile of the whole run is written there when it exits), BENCH_NODE_OPTIONS (the PS's
 * NODE_OPTIONS, as in soak.ts).
 */
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approvedMission, type BenchContext, type BenchSection } from './context.js';
import { BENCH_RATE_LIMITS, BenchFixture } from './fixture.js';
import { oracleSection } from './oracle.js';
import { benchPort, PersonServerProcess } from './server.js';
import { HttpSender } from './signed-client.js';
import { statusSection } from './status.js';
import { verifySection } from './verify.js';
import { LocalRevocationEndpoint } from './local-resource.js';
import { revocationSection } from './revocation.js';

/** Every section, in the order they run. */
const SECTIONS: readonly BenchSection[] = [statusSection, verifySection, oracleSection, revocationSection];

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const argument = process.argv[2]?.replace(/^--sections=/, '');

if (argument === '--help' || argument === '-h') {
  console.log('node tools/bench/dist/person-server/bench.js [section,...]   (or BENCH_SECTIONS=...)');
  for (const section of SECTIONS) console.log(`  ${section.name.padEnd(8)} ${section.summary}`);
  process.exit(0);
}

const requested = (argument ?? process.env['BENCH_SECTIONS'] ?? SECTIONS.map((section) => section.name).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
const unknown = requested.filter((name) => !SECTIONS.some((section) => section.name === name));
if (unknown.length > 0) {
  console.error(`unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.map((section) => section.name).join(', ')}`);
  process.exit(2);
}
const selected = SECTIONS.filter((section) => requested.includes(section.name));

const options = {
  repositoryRoot,
  concurrency: Number(process.env['BENCH_CONCURRENCY'] ?? 32),
  seconds: Number(process.env['BENCH_SECONDS'] ?? 10),
};
const owners = Number(process.env['BENCH_OWNERS'] ?? 8);
const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');

const fixture = await BenchFixture.create(owners);
const revocationEndpoint = new LocalRevocationEndpoint();
await revocationEndpoint.start();
// BENCH_REVOCATION_RATE raises the PS's per-resource revocation rate limit (default 200 calls/s) for this run.
const revocationRate = process.env['BENCH_REVOCATION_RATE'];
const revocation = revocationRate !== undefined ? { per_resource_per_second: Number(revocationRate) } : undefined;
const revocationSettings = revocation !== undefined ? `revocation.per_resource_per_second ${revocationRate} (BENCH_REVOCATION_RATE), other settings PS defaults` : 'PS defaults (per_resource_per_second 200, concurrency 32, wait_ms 250)';
const server = await PersonServerProcess.start({
  repositoryRoot,
  config: fixture.config({ revocationEndpoint: revocationEndpoint.url, ...(revocation !== undefined ? { revocation } : {}) }),
  port: benchPort(),
  logLevel: process.env['BENCH_LOG_LEVEL'] ?? 'info',
  ...(process.env['BENCH_PROFILE_DIR'] ? { profileDir: resolve(process.env['BENCH_PROFILE_DIR']) } : {}),
  ...(process.env['BENCH_NODE_OPTIONS'] ? { nodeOptions: process.env['BENCH_NODE_OPTIONS'] } : {}),
});
const sender = new HttpSender(server.baseUrl, Math.max(options.concurrency, 8));
let failed = false;
try {
  console.log(
    `Person Server benchmark: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), load average ${load()} at the start; ` +
      `sections ${selected.map((section) => section.name).join(', ')}`,
  );
  console.log(
    `  PS = node apps/person-server/dist/bundle/main.mjs (pid ${server.pid}) at ${server.baseUrl}, embedded SQLite store in a fresh temp DATA_DIR, LOG_LEVEL ${process.env['BENCH_LOG_LEVEL'] ?? 'info'} to a file; ` +
      `the load generator (signing, HTTP/1.1 keep-alive) is this separate process on the same machine`,
  );
  console.log(
    `  rate limits RAISED for the bench: rate_limits.per_caller_per_minute ${BENCH_RATE_LIMITS.per_caller_per_minute.toLocaleString('en')}, ` +
      `per_source_per_minute ${BENCH_RATE_LIMITS.per_source_per_minute.toLocaleString('en')} (defaults 600 / 6,000); the ProbeLimiter (60 failed lookups/caller/min) is not configurable and stays as shipped`,
  );
  const missions: string[] = [];
  for (const agent of fixture.owners) missions.push(await approvedMission(sender, fixture, agent, `bench mission of ${agent.id}`));
  console.log(`  ${missions.length} missions approved (proposal → person approval → poll), one per owner agent (Ed25519 agent keys, ES256 agent provider)`);
  const context: BenchContext = { options, fixture, server, sender, missions, results: new Map(), resource: revocationEndpoint, revocationSettings };
  for (const section of selected) {
    console.log('');
    await section.run(context);
    console.log(`  (load average ${load()})`);
  }
  // A non-200 under load is a finding, not noise: the run fails.
  if ((context.results.get('status.errors') ?? 0) > 0) failed = true;
  if ((context.results.get('revocation.errors') ?? 0) > 0) failed = true;
} catch (error) {
  failed = true;
  console.error(error);
  console.error(`--- person-server log (tail) ---\n${server.logTail()}`);
} finally {
  sender.close();
  await revocationEndpoint.stop();
  const keep = process.env['BENCH_KEEP'] === '1';
  await server.stop(keep);
  if (keep) console.log(`kept ${server.tempDir}`);
}
if (failed) process.exitCode = 1;
