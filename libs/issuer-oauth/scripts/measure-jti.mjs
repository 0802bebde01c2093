// Measures what single-use jti costs a DPoP check: in-memory vs an embedded-store no_stream append (README "Replay storage").
// Run after a build: npx tsc -b libs/issuer-oauth && node libs/issuer-oauth/scripts/measure-jti.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { EmbeddedEventStore } from '@mission/event-store';
import { EventStoreJtiRegistry, InMemoryJtiRegistry, verifyDpopProof, systemClock } from '../dist/index.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const URL_ = 'https://issuer.example/token';
const proofs = async (n) => Promise.all(Array.from({ length: n }, () => new SignJWT({ jti: randomUUID(), htm: 'POST', htu: URL_, iat: Math.floor(Date.now() / 1000) }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey)));

async function run(label, jtis, n, concurrency) {
  const list = await proofs(n);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(list.slice(i, i + concurrency).map((dpop) => verifyDpopProof({ method: 'POST', url: URL_, dpop }, { jtis, clock: systemClock })));
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`${label.padEnd(44)} n=${n} conc=${String(concurrency).padStart(2)}  ${(ms / n).toFixed(3)} ms/proof  ${Math.round(n / (ms / 1000))} proofs/s`);
}

async function rawAppends(store, n, concurrency) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, () => store.appendToStream(`dpopjti-${randomUUID()}`, [{ type: 'DpopProofUsed', data: { a: 1 } }], { expectedRevision: 'no_stream' })));
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(`${'raw no_stream append'.padEnd(44)} n=${n} conc=${String(concurrency).padStart(2)}  ${(ms / n).toFixed(3)} ms/append  ${Math.round(n / (ms / 1000))} appends/s`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'jti-measure-'));
const store = await EmbeddedEventStore.open({ dataDir });
try {
  await run('warm-up', new InMemoryJtiRegistry(systemClock), 200, 1);
  for (const c of [1, 16, 64]) await run('verifyDpopProof + in-memory jti', new InMemoryJtiRegistry(systemClock), 2000, c);
  for (const c of [1, 16, 64]) await run('verifyDpopProof + embedded store jti', new EventStoreJtiRegistry(store, systemClock), 2000, c);
  for (const c of [1, 64]) await rawAppends(store, 2000, c);
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
