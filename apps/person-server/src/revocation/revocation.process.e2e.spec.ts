import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { verifyHashChain } from '@mission/es-kit';
import { openEventStore, type RecordedEvent } from '@mission/event-store';
import type { RunningService } from '@mission/platform';
import { tokensStreamName } from '@mission/ps-domain';
import { alice, eventually, newAgent, PsClient, requestId, type Agent } from '../testing/ps-http.spec-helper.js';
import { FakeResource } from '../testing/fake-resource.js';
import { configWithResource, resourceToken } from '../testing/resource-tokens.js';
import { builtMain, runBuiltPersonServer, testBaseUrl } from '../testing/run-person-server.js';

/** Runs the built entry point (the bundle, ADR 0078); needs `npm run build` first (`npm test` builds before testing). */
const built = existsSync(builtMain);
if (!built) console.warn(`skipping revocation process tests: ${builtMain} is missing; run \`npm run build\` first`);
const describeBuilt = built ? describe : describe.skip;

const TOKENS = 5;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Child {
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts `node apps/person-server/dist/bundle/main.mjs` and resolves once it logged `listening on`. */
function startChild(env: Record<string, string>): Promise<Child> {
  return new Promise((resolve, reject) => {
    const exited = runBuiltPersonServer(env, (pid) => resolve({ pid, exited }), 90_000);
    exited.then((result) => reject(new Error(`the Person Server exited before listening: ${result.stderr || result.stdout.slice(-2000)}`)), reject);
  });
}

let workDir: string;
const resource = new FakeResource();
beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'ps-revocation-process-'));
  await resource.start('fail');
});
afterAll(async () => {
  await resource.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describeBuilt('spec 4.4 rule 2: revocation retries are durable work that survives kill -9 of the Person Server', () => {
  it('continues from the events after a restart: nothing lost, nothing confirmed twice', async () => {
    const port = await freePort();
    const configFile = join(workDir, 'person-server.json');
    // Timing that holds on a slow, loaded machine: failed rounds are 1–2 s apart, so the switch to `hang` below lands
    // between two rounds rather than inside one; a round is aborted at 80 % of lease_ms, so a hanging round's calls stay
    // in flight for 4.8 s, ample time for the kill to land while they are. The restart waits out the lease.
    writeFileSync(
      configFile,
      JSON.stringify(
        configWithResource(resource.endpoint, {
          revocation: { wait_ms: 100, max_attempts: 20, initial_delay_ms: 2_000, max_delay_ms: 2_000, timeout_ms: 10_000, lease_ms: 6_000, per_resource_per_second: 1_000, concurrency: 8 },
        }),
      ),
    );
    const env = { PORT: String(port), BASE_URL: testBaseUrl, DATA_DIR: join(workDir, 'data'), CONFIG_FILE: configFile };
    const ps = new PsClient(() => ({ listenUrl: `http://127.0.0.1:${port}` }) as RunningService);

    // 1. A mission with tracked tokens; the resource fails, so the first round records failures.
    let child = await startChild(env);
    const agent: Agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const jtis: string[] = [];
    for (let index = 0; index < TOKENS; index++) {
      const rt = await resourceToken({ agent: agent.id, agentJkt: await calculateJwkThumbprint(agent.key.publicJwk, 'sha256'), missionS256: s256, audience: testBaseUrl });
      const reply = await ps.asAgent(agent, { path: '/token', body: { resource_token: rt } });
      expect(reply.status).toBe(200);
      jtis.push(String(decodeJwt(String(reply.json['auth_token'])).jti));
    }
    const terminated = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
    expect(terminated.json['token_residual']).toMatchObject({ tracked: TOKENS, revocation_confirmed: 0 });
    await eventually(() => jtis.every((jti) => resource.callsFor(jti) >= 1), 30_000);

    // 2. The next round hangs at the resource: kill -9 the PS with attempts recorded and calls in flight. Wait for a call
    // of every token that reached the resource after the switch (so it hangs), not just for a second call (that may have
    // been answered 500 by a round started before the switch, leaving no call in flight).
    const hangingFrom = resource.calls.length;
    await resource.setMode('hang');
    await eventually(() => jtis.every((jti) => resource.calls.slice(hangingFrom).some((call) => call.jti === jti)), 30_000);
    process.kill(child.pid, 'SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    // 3. Restart on the same data; the resource now answers 200. The claim's lease runs out and the work resumes.
    await resource.setMode('ok');
    child = await startChild(env);
    try {
      await eventually(async () => {
        const late = await ps.asPrincipal(alice, { body: { operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() } });
        return (late.json['token_residual'] as Record<string, unknown> | undefined)?.['revocation_confirmed'] === TOKENS;
      }, 60_000);
    } finally {
      process.kill(child.pid, 'SIGTERM');
      await child.exited;
    }

    // 4. The log: every attempt recorded, the killed round's attempts without a result, one confirmation per token.
    const store = await openEventStore({ dataDir: join(workDir, 'data'), logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
    try {
      const log: RecordedEvent[] = [];
      for await (const event of store.readStream(tokensStreamName(s256))) log.push(event);
      for (const jti of jtis) {
        const mine = log.filter((event) => event.data['jti'] === jti);
        const attempts = mine.filter((event) => event.type === 'TokenRevocationAttempted').map((event) => event.data['attempt']);
        const confirmations = mine.filter((event) => event.type === 'TokenRevocationConfirmed');
        expect(confirmations).toHaveLength(1);
        expect(attempts.length).toBeGreaterThanOrEqual(3);
        expect(attempts).toEqual(attempts.map((_, index) => index + 1));
        // The attempt in flight at the kill has no result; the one after the restart is confirmed.
        const answered = new Set(mine.filter((event) => event.type === 'TokenRevocationFailed' || event.type === 'TokenRevocationConfirmed').map((event) => event.data['attempt']));
        expect(answered.size).toBe(attempts.length - 1);
        expect(confirmations[0]!.data['attempt']).toBe(attempts[attempts.length - 1]);
      }
      expect((await verifyHashChain(store, tokensStreamName(s256))).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 240_000);
});
