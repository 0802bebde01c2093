/**
 * Issuer benchmark (a script, not a test): `npm run bench:issuer`.
 * Starts the built issuer (`apps/issuer/dist/bundle/main.mjs`, what `npm start` runs) on the embedded store in a temp DATA_DIR and drives
 * it with 32 concurrent clients over HTTP, each acting as a real agent would (private_key_jwt assertion,
 * DPoP proof, PKCE). Prints requests/s and p50/p99 latency for `POST /par`, for `refresh_token` with DPoP,
 * and Child Mission creations/s (PAR creation + redemption by the child actor, spec 4.1, DESIGN 2.4).
 * Then revokes roots with 1,000 and 10,000 descendants on an issuer started in this process and prints
 * how soon the descendants' refreshes are refused and how soon all are recorded `cascaded` (cascade.ts).
 * Options: BENCH_CONCURRENCY (32), BENCH_SECONDS (10 per phase), BENCH_TREES (children of the root per
 * tree, each with 99 grandchildren: `10,100`; empty to skip the cascade part), BENCH_PROFILE_DIR (write a CPU
 * profile of each revoke-to-cascaded window there), BENCH_HEAP_PROFILE_DIR (a sampling heap profile of what each such window
 * allocated, and the bytes per descendant), BENCH_ONLY_CASCADE=1 (skip the HTTP phases, run only the cascade part).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientAssertion, createPkcePair, DpopKey, type ClientKey } from '@mission/mission-client';
import { cascadeBench } from './cascade.js';
import { demoClient as loadDemoClient, FORM, form, LEAF_DETAILS, obtainRootMission, redeemChild, REDIRECT_URI, requestChild, ROOT_DETAILS } from './flows.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const trees = (process.env['BENCH_TREES'] ?? '10,100').split(',').filter((size) => size.trim() !== '').map(Number);
/** The one port of 4100–4900 that `fetch` refuses ("bad port", Fetch standard §2.9: sieve); the cascade uses port + 1. */
const FETCH_BAD_PORT = 4190;
function benchPort(): number {
  for (;;) {
    const candidate = 4100 + Math.floor(Math.random() * 800);
    if (candidate !== FETCH_BAD_PORT && candidate + 1 !== FETCH_BAD_PORT) return candidate;
  }
}
const port = benchPort();
const issuer = `http://127.0.0.1:${port}`;

const demoClient = (clientId: string): Promise<ClientKey> => loadDemoClient(root, clientId);

function startIssuer(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'apps/issuer/dist/bundle/main.mjs')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), BASE_URL: issuer, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ready, fail) => {
    const deadline = setTimeout(() => fail(new Error('issuer did not start within 30 s')), 30_000);
    const poll = setInterval(() => {
      fetch(`${issuer}/readyz`).then((reply) => {
        if (reply.ok) {
          clearInterval(poll);
          clearTimeout(deadline);
          ready(child);
        }
      }, () => undefined);
    }, 200);
    child.on('exit', (code) => fail(new Error(`issuer exited with ${code}`)));
  });
}

async function par(client: ClientKey): Promise<{ requestUri: string; verifier: string }> {
  const pkce = createPkcePair();
  const reply = await fetch(`${issuer}/par`, {
    method: 'POST',
    headers: FORM,
    body: form({
      ...(await clientAssertion(client, issuer)),
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      mission_intent: JSON.stringify({ intent: { goal: 'benchmark', resources: ['https://erp.example.com'], expires_at: new Date(Date.now() + 3_600_000).toISOString() } }),
      authorization_details: JSON.stringify([{ type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['invoices.read'] }]),
    }),
  });
  if (reply.status !== 201) throw new Error(`PAR answered ${reply.status}: ${await reply.text()}`);
  return { requestUri: ((await reply.json()) as { request_uri: string }).request_uri, verifier: pkce.verifier };
}

async function refreshToken(client: ClientKey, dpop: DpopKey): Promise<string> {
  const { requestUri, verifier } = await par(client);
  const authorize = await fetch(`${issuer}/authorize?${form({ client_id: client.clientId, request_uri: requestUri })}`, { redirect: 'manual' });
  const code = new URL(authorize.headers.get('location') ?? '').searchParams.get('code');
  if (!code) throw new Error(`authorize answered ${authorize.status} without a code`);
  const reply = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { ...FORM, DPoP: await dpop.proof('POST', `${issuer}/token`) },
    body: form({ ...(await clientAssertion(client, issuer)), grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }),
  });
  if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${await reply.text()}`);
  return ((await reply.json()) as { refresh_token: string }).refresh_token;
}

const percentile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);

async function measure(label: string, worker: (index: number) => Promise<() => Promise<void>>, unit = 'requests'): Promise<void> {
  const requests = await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(index)));
  const latencies: number[] = [];
  let failures = 0;
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    requests.map(async (request) => {
      while (Date.now() < end) {
        const begin = process.hrtime.bigint();
        try {
          await request();
          latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
        } catch (error) {
          if (++failures === 1) console.error(`${label}: ${(error as Error).message}`);
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => percentile(latencies, q);
  console.log(`${label}: ${Math.round(latencies.length / elapsed).toLocaleString('en')} ${unit}/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${latencies.length} ok, ${failures} failed, ${concurrency} clients, ${elapsed.toFixed(1)} s)`);
}

/** Latencies of one step inside a measured operation, printed after it. */
class Step {
  private readonly latencies: number[] = [];
  constructor(readonly label: string) {}

  async time<T>(step: () => Promise<T>): Promise<T> {
    const begin = process.hrtime.bigint();
    const result = await step();
    this.latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
    return result;
  }

  toString(): string {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return `${this.label} p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms`;
  }
}

const onlyCascade = process.env['BENCH_ONLY_CASCADE'] === '1';
if (!onlyCascade) await httpPhases();

async function httpPhases(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-issuer-'));
  const child = await startIssuer(dataDir);
  try {
    const client = await demoClient('demo-agent');
    console.log(
      `issuer benchmark, node ${process.version}, ${concurrency} concurrent clients, ${seconds} s per phase, embedded store; ` +
        `${cpus().length} CPUs, load average ${loadavg().map((load) => load.toFixed(1)).join(' ')} at the start`,
    );
    await measure('POST /par', async () => async () => void (await par(client)));
    await measure('refresh_token with DPoP', async () => {
      const dpop = await DpopKey.generate();
      let refresh = await refreshToken(client, dpop);
      return async () => {
        const reply = await fetch(`${issuer}/token`, {
          method: 'POST',
          headers: { ...FORM, DPoP: await dpop.proof('POST', `${issuer}/token`) },
          body: form({ ...(await clientAssertion(client, issuer)), grant_type: 'refresh_token', refresh_token: refresh }),
        });
        if (reply.status !== 200) throw new Error(`refresh answered ${reply.status}: ${await reply.text()}`);
        refresh = ((await reply.json()) as { refresh_token: string }).refresh_token;
      };
    });
    // Spec 4.1, DESIGN 2.4: each client holds its own delegable root; one creation = PAR by the parent's
    // holder (parent_token + DPoP proof with ath) + redemption by the child actor with its own key.
    const subagent = await demoClient('demo-subagent');
    const creation = new Step('PAR creation');
    const redemption = new Step('redemption');
    await measure(
      'child creation (PAR + redemption)',
      async () => {
        const parent = await obtainRootMission(issuer, client, ROOT_DETAILS);
        const childKey = await DpopKey.generate();
        return async () => {
          const requestUri = await creation.time(() => requestChild(issuer, parent, 'demo-subagent', LEAF_DETAILS));
          await redemption.time(() => redeemChild(issuer, subagent, childKey, requestUri));
        };
      },
      'creations',
    );
    console.log(`  of which ${creation}; ${redemption}`);
    const metrics = await (await fetch(`${issuer}/metrics`)).text();
    const rss = /^process_resident_memory_bytes(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1];
    console.log(`issuer resident memory after the run: ${rss ? Math.round(Number(rss) / 2 ** 20) : '?'} MiB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.on('exit', done));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (trees.length > 0) {
  const cascadeDir = mkdtempSync(join(tmpdir(), 'bench-issuer-cascade-'));
  try {
    const cpuProfileDir = process.env['BENCH_PROFILE_DIR'];
    const heapProfileDir = process.env['BENCH_HEAP_PROFILE_DIR'];
    const profileDirs = { ...(cpuProfileDir ? { cpu: resolve(cpuProfileDir) } : {}), ...(heapProfileDir ? { heap: resolve(heapProfileDir) } : {}) };
    await cascadeBench({ repositoryRoot: root, dataDir: cascadeDir, port: port + 1, concurrency, trees, profileDirs });
  } finally {
    rmSync(cascadeDir, { recursive: true, force: true });
  }
}
