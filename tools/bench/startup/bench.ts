/**
 * Issue 15 items 6 and 3: start-up and memory of a service on a store of 1,000,000 events (a script, not a test).
 *
 *   npm run build && node tools/bench/dist/startup/bench.js person-server
 *   BENCH_EVENTS=1000000 node tools/bench/dist/startup/bench.js issuer
 *
 * 1. Fills a fresh embedded store (temp DATA_DIR) with BENCH_EVENTS (1,000,000) events of the service's own event
 *    types and shapes (issuer-history.ts, person-server-history.ts), inserted straight into the store's tables (history.ts).
 * 2. Starts the built service (`apps/<service>/dist/bundle/main.mjs`, what `npm start` runs) on it as a child process —
 *    BENCH_STARTS times (2): the first start meets a history none of its consumers has seen (an upgrade, a restored
 *    backup), every later one is a restart of a service that ran on this store and stopped cleanly.
 * 3. Prints per start: ms to the `listening on` log line, ms to the first `/readyz` 200, ms until each readiness
 *    check first passed (each projection and process manager), RSS at ready and BENCH_SETTLE_MS (3,000) later,
 *    peak RSS (VmHWM) and how long the SIGTERM stop took.
 * BENCH_NODE_OPTIONS is the services' NODE_OPTIONS (e.g. --max-old-space-size=128). BENCH_KEEP=1 keeps the temp directory (store, logs). BENCH_READY_TIMEOUT_S (90) bounds each start.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchFixture } from '../person-server/fixture.js';
import { writeHistory, type History } from './history.js';
import { issuerHistory } from './issuer-history.js';
import { personServerHistory } from './person-server-history.js';
import { measureStart, serviceMain, type StartMeasurement } from './service-run.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const service = process.argv[2] ?? process.env['BENCH_SERVICE'] ?? 'person-server';
if (service !== 'issuer' && service !== 'person-server') {
  console.error('usage: node tools/bench/dist/startup/bench.js issuer|person-server');
  process.exit(2);
}
const events = Number(process.env['BENCH_EVENTS'] ?? 1_000_000);
const starts = Number(process.env['BENCH_STARTS'] ?? 2);
const settleMs = Number(process.env['BENCH_SETTLE_MS'] ?? 3_000);
const readyTimeoutMs = Number(process.env['BENCH_READY_TIMEOUT_S'] ?? 90) * 1000;
const port = 5100 + Math.floor(Math.random() * 800);
const baseUrl = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), `bench-startup-${service}-`));
const dataDir = join(dir, 'data');
const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MiB`;

const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), BASE_URL: baseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info' };
for (const name of ['EVENTSTORE_CONNECTION_STRING', 'SIGNING_KEY_FILE', 'NODE_OPTIONS', 'MANAGEMENT_PORT']) delete env[name];
// The service's own Node options (e.g. a heap bound as the Kubernetes manifests set it), apart from the bench's.
if (process.env['BENCH_NODE_OPTIONS']) env['NODE_OPTIONS'] = process.env['BENCH_NODE_OPTIONS'];
let history: History;
if (service === 'person-server') {
  const fixture = await BenchFixture.create(1);
  const configFile = join(dir, 'person-server.json');
  writeFileSync(configFile, JSON.stringify(fixture.config(), null, 2));
  Object.assign(env, { CONFIG_FILE: configFile, SECURITY_AUDIT_HMAC_KEY: randomBytes(32).toString('base64url') });
  // BENCH_MISSIONS: approved missions in the history (default 2,000); each takes 3 events before the polls begin.
  history = personServerHistory(Number(process.env['BENCH_MISSIONS'] ?? 2_000));
} else {
  // BENCH_MISSIONS: root missions in the history (default 3,000); each takes ≈ 9 events before the refreshes begin.
  history = issuerHistory(baseUrl, Number(process.env['BENCH_MISSIONS'] ?? 3_000));
}

console.log(`start-up bench: ${service}, ${events.toLocaleString('en')} events; ${cpus().length} cpus, load ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
console.log(`history: ${history.description}`);
try {
  const fillStart = performance.now();
  const written = await writeHistory(dataDir, history, events);
  console.log(`filled ${written.toLocaleString('en')} events in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; store file ${mib(statSync(join(dataDir, 'events.sqlite')).size)}`);
  for (let index = 1; index <= starts; index++) {
    const measured = await measureStart({ main: serviceMain(root, service), cwd: root, env, baseUrl, logFile: join(dir, `start-${index}.log`), readyTimeoutMs, settleMs });
    print(index === 1 ? 'first start on the history' : `restart ${index - 1}`, measured);
  }
} finally {
  if (process.env['BENCH_KEEP'] === '1') console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

function print(label: string, measured: StartMeasurement): void {
  console.log(`${label}: listening on ${measured.listeningMs} ms, /readyz 200 at ${measured.readyMs} ms; RSS ${mib(measured.rssAtReady)} at ready, ${mib(measured.rssSettled)} ${settleMs} ms later, peak ${mib(measured.peakRss)}; SIGTERM → exit ${measured.stopMs} ms`);
  const checks = [...measured.checks].sort((a, b) => b[1] - a[1]);
  console.log(`  readiness checks, first passed at: ${checks.map(([name, ms]) => `${name} ${ms} ms`).join(', ')}`);
}
