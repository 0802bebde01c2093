/**
 * Issuer benchmark (a script, not a test): `npm run bench:issuer`.
 * Starts the built issuer (`apps/issuer/dist/main.js`) on the embedded store in a temp DATA_DIR and drives
 * it with 32 concurrent clients over HTTP, each acting as a real agent would (private_key_jwt assertion,
 * DPoP proof, PKCE). Prints requests/s and p50/p99 latency for `POST /par` and for `refresh_token` with DPoP.
 * Options: BENCH_CONCURRENCY (32), BENCH_SECONDS (10 per phase).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { clientAssertion, createPkcePair, DpopKey, type ClientKey } from '@mission/mission-client';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const port = 4100 + Math.floor(Math.random() * 800);
const issuer = `http://127.0.0.1:${port}`;

async function demoClient(clientId: string): Promise<ClientKey> {
  const jwk = JSON.parse(readFileSync(join(root, 'config/demo-keys', `issuer-client-${clientId}.private.jwk.json`), 'utf8')) as JWK;
  return { clientId, privateKey: (await importJWK(jwk, 'ES256')) as CryptoKey, alg: 'ES256', ...(jwk.kid ? { kid: jwk.kid } : {}) };
}

function startIssuer(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(root, 'apps/issuer/dist/main.js')], {
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

const form = (values: Record<string, string>) => new URLSearchParams(values).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

async function par(client: ClientKey): Promise<{ requestUri: string; verifier: string }> {
  const pkce = createPkcePair();
  const reply = await fetch(`${issuer}/par`, {
    method: 'POST',
    headers: FORM,
    body: form({
      ...(await clientAssertion(client, issuer)),
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:9000/cb',
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
    body: form({ ...(await clientAssertion(client, issuer)), grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9000/cb', code_verifier: verifier }),
  });
  if (reply.status !== 200) throw new Error(`token answered ${reply.status}: ${await reply.text()}`);
  return ((await reply.json()) as { refresh_token: string }).refresh_token;
}

async function measure(label: string, worker: (index: number) => Promise<() => Promise<void>>): Promise<void> {
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
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(`${label}: ${Math.round(latencies.length / elapsed).toLocaleString('en')} requests/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${latencies.length} ok, ${failures} failed, ${concurrency} clients, ${elapsed.toFixed(1)} s)`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-issuer-'));
const child = await startIssuer(dataDir);
try {
  const client = await demoClient('demo-agent');
  console.log(`issuer benchmark, node ${process.version}, ${concurrency} concurrent clients, ${seconds} s per phase, embedded store`);
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
  const metrics = await (await fetch(`${issuer}/metrics`)).text();
  const rss = /^process_resident_memory_bytes(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1];
  console.log(`issuer resident memory after the run: ${rss ? Math.round(Number(rss) / 2 ** 20) : '?'} MiB`);
} finally {
  child.kill('SIGTERM');
  await new Promise((done) => child.on('exit', done));
  rmSync(dataDir, { recursive: true, force: true });
}
