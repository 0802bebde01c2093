/**
 * Section `verify`: the Person Server's request authentication alone — its own `RequestAuthenticator`
 * (apps/person-server/src/auth: signature base, `created` window, Content-Digest, `Signature-Key` →
 * Agent Token verified with jose, RFC 9421 signature, replay cache) — in a tight sequential loop in
 * this process over N status requests signed beforehand (one per owner agent in turn, each with its
 * own nonce), after a warm-up. Also two parts of it on their own: resolving the key (Agent Token
 * verification) and verifying the RFC 9421 signature with an already resolved key.
 * The Person Server process is idle meanwhile (no load section runs concurrently).
 */
import { cpuUsage } from 'node:process';
import { ascending, fixed, nowMicros, percentile, thousands, type BenchContext, type BenchSection } from './context.js';
import { loadPersonServerAuth, type IncomingSignedRequest } from './person-server-modules.js';
import { signAsAgent, statusBody } from './signed-client.js';

const VERIFICATIONS = Number(process.env['BENCH_VERIFY_N'] ?? 5000);
const WARMUP = Math.min(1000, VERIFICATIONS);

interface Timing {
  readonly wallMicros: number;
  readonly cpuMicros: number;
  readonly p50: number;
  readonly p99: number;
}

async function timeLoop<T>(items: readonly T[], step: (item: T) => Promise<unknown>): Promise<Timing> {
  const each: number[] = [];
  const cpuBefore = cpuUsage();
  const started = nowMicros();
  for (const item of items) {
    const begin = nowMicros();
    await step(item);
    each.push(nowMicros() - begin);
  }
  const wall = nowMicros() - started;
  const cpu = cpuUsage(cpuBefore);
  const sorted = ascending(each);
  return { wallMicros: wall / items.length, cpuMicros: (cpu.user + cpu.system) / items.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

const describe = (timing: Timing): string =>
  `${fixed(timing.wallMicros, 1)} µs wall (p50 ${fixed(timing.p50, 1)}, p99 ${fixed(timing.p99, 1)}), ${fixed(timing.cpuMicros, 1)} µs CPU per verification`;

function signedRequests(context: BenchContext, count: number): IncomingSignedRequest[] {
  const { fixture, missions, server } = context;
  return Array.from({ length: count }, (_, index) => {
    const owner = index % fixture.owners.length;
    const signed = signAsAgent(server.baseUrl, fixture.owners[owner]!, { body: statusBody(missions[owner]!) });
    return { method: signed.method, originalUrl: signed.path, headers: { host: new URL(server.baseUrl).host, ...signed.headers }, ...(signed.body ? { rawBody: signed.body } : {}) };
  });
}

export const verifySection: BenchSection = {
  name: 'verify',
  summary: "the PS's RequestAuthenticator alone over N pre-signed status requests: µs per verification, verifications/s, share of a status request",
  async run(context) {
    const auth = await loadPersonServerAuth(context.options.repositoryRoot);
    const config = context.fixture.config() as { principals: unknown[]; agent_providers: unknown[] };
    const clock = { now: () => new Date() };
    const authenticator = auth.newAuthenticator({ baseUrl: context.server.baseUrl, principals: config.principals, agentProviders: config.agent_providers, clock });
    const forgetful = auth.newAuthenticator({ baseUrl: context.server.baseUrl, principals: config.principals, agentProviders: config.agent_providers, clock, rememberTokens: false });
    const resolveKey = auth.keyResolver(config.principals, config.agent_providers, clock);

    // Each loop gets requests signed just before its clock starts, so all are verified within the ±60 s `created` window.
    await timeLoop(signedRequests(context, WARMUP), (request) => authenticator.authenticate(request));
    const full = await timeLoop(signedRequests(context, VERIFICATIONS), (request) => authenticator.authenticate(request));
    // The same with every Agent Token verified in full, as on a token's first use (ADR 0065).
    await timeLoop(signedRequests(context, WARMUP), (request) => forgetful.authenticate(request));
    const firstUse = await timeLoop(signedRequests(context, VERIFICATIONS), (request) => forgetful.authenticate(request));

    // The parts on their own (no replay cache involved). Key resolution does not look at `created`.
    const keyOnly = await timeLoop(signedRequests(context, VERIFICATIONS), (request) => resolveKey(request.headers));
    // The keys are resolved first (untimed), so the clock is pinned to the signing time: a slow machine
    // must not push `created` out of the window before the timed loop runs.
    const signedAt = new Date();
    const pinned = { now: () => signedAt };
    const toVerify = signedRequests(context, VERIFICATIONS);
    const resolved = [];
    for (const request of toVerify) resolved.push({ message: auth.signedMessage(request, context.server.baseUrl), key: await resolveKey(request.headers) });
    const signatureOnly = await timeLoop(resolved, ({ message, key }) => auth.signatureVerifies(message, key, true, pinned));

    console.log(`verification alone (the PS's RequestAuthenticator in the bench process, sequential, ${thousands(VERIFICATIONS)} pre-signed status requests after ${thousands(WARMUP)} warm-up):`);
    console.log(`  full authenticate(), as the server runs it (each agent's Agent Token verified once, then remembered: ADR 0065): ${describe(full)}`);
    console.log(`    ⇒ at most ≈ ${thousands(1e6 / full.cpuMicros)} verifications/s on one core (1 / CPU time; 1 / wall time = ${thousands(1e6 / full.wallMicros)}/s)`);
    console.log(`  full authenticate() with every Agent Token verified in full (a token's first use): ${describe(firstUse)}`);
    console.log(`  of which Signature-Key → Agent Token verified in full (ES256, jose) + JWK thumbprint: ${describe(keyOnly)}`);
    console.log(`  of which RFC 9421 base + Ed25519 signature with the key resolved: ${describe(signatureOnly)}`);
    console.log(`  rest by subtraction (Signature-Input parsing, created window, Content-Digest, replay cache; noisy): ≈ ${fixed(full.cpuMicros - keyOnly.cpuMicros - signatureOnly.cpuMicros, 1)} µs CPU`);

    const serverCpu = context.results.get('status.serverCpuMicrosPerRequest');
    const rps = context.results.get('status.rps');
    if (serverCpu !== undefined && rps !== undefined) {
      const perRequest = 1e6 / rps;
      console.log(
        `  verification share of a status request = verification CPU ÷ PS CPU per status request (section status) = ${fixed(full.cpuMicros, 0)} ÷ ${fixed(serverCpu, 0)} µs = ${fixed((100 * full.cpuMicros) / serverCpu, 0)} %` +
          ` (ratio request ÷ verification = ${fixed(serverCpu / full.cpuMicros, 1)})`,
      );
      console.log(`  against 1/throughput of section status (${fixed(perRequest, 0)} µs): ${fixed((100 * full.cpuMicros) / perRequest, 0)} % (ratio ${fixed(perRequest / full.cpuMicros, 1)})`);
      console.log(`  with every Agent Token verified in full instead: ${fixed(firstUse.cpuMicros, 0)} ÷ ${fixed(serverCpu, 0)} µs = ${fixed((100 * firstUse.cpuMicros) / serverCpu, 0)} %`);
    } else console.log('  (run section status in the same run for the share of a full status request)');
    context.results.set('verify.cpuMicros', full.cpuMicros);
  },
};
