/**
 * Section `revocation` (issue 6): a mission with N tracked Auth Tokens (BENCH_TOKENS, 1,000) issued over
 * `POST /token`, then `terminate`: the time until every revocation is **recorded as confirmed** by the PS
 * (read back with later terminate calls, which report `token_residual`), against a local endpoint that
 * answers 200 at once. The PS's `revocation.per_resource_per_second` bounds this by design; the run
 * prints the limit it used (BENCH_REVOCATION_RATE overrides it).
 */
import { randomBytes } from 'node:crypto';
import { approvedMission, ascending, fixed, median, nowMicros, percentile, thousands, type BenchContext, type BenchSection } from './context.js';
import { jsonOf, signAsAgent, signAsPrincipal } from './signed-client.js';

const requestId = (): string => randomBytes(24).toString('base64url');

export const revocationSection: BenchSection = {
  name: 'revocation',
  summary: 'N tracked tokens (BENCH_TOKENS, 1000) → terminate → all revocations recorded confirmed against a local 200 endpoint',
  async run(context: BenchContext): Promise<void> {
    const { sender, fixture, server } = context;
    const endpoint = context.resource;
    if (endpoint === undefined) throw new Error('the revocation section needs the local revocation endpoint');
    const tokens = Number(process.env['BENCH_TOKENS'] ?? 1_000);
    const agent = fixture.owners[0]!;
    const s256 = await approvedMission(sender, fixture, agent, 'bench mission with tracked tokens');

    // 1. N auth tokens under one mission, 32 at a time (each: Resource Token verified, Auth Token signed, AuthTokenIssued appended).
    const latencies: number[] = [];
    const issueStart = nowMicros();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < tokens; index = next++) {
        const body = JSON.stringify({ resource_token: await fixture.resourceToken(agent, s256, server.baseUrl) });
        const started = nowMicros();
        jsonOf(await sender.send(signAsAgent(sender.baseUrl, agent, { path: '/token', body })), 200, 'POST /token');
        latencies.push(nowMicros() - started);
      }
    };
    await Promise.all(Array.from({ length: Math.min(context.options.concurrency, tokens) }, worker));
    const issueSeconds = (nowMicros() - issueStart) / 1e6;
    const sorted = ascending(latencies);
    console.log(`revocation (one mission, ${thousands(tokens)} tracked Auth Tokens, local revocation endpoint answering 200 at once):`);
    console.log(
      `  POST /token: ${thousands(tokens)} tokens in ${fixed(issueSeconds, 2)} s = ${fixed(tokens / issueSeconds)} tokens/s at ${context.options.concurrency} concurrent; ` +
        `p50 ${fixed(median(sorted) / 1000, 2)} ms, p99 ${fixed(percentile(sorted, 0.99) / 1000, 2)} ms (client-side Resource Token signing included in the wall time, not in the latency)`,
    );

    // 2. terminate, then read the residual back until every token is recorded confirmed.
    const terminateBody = (): string => JSON.stringify({ operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() });
    const t0 = performance.now();
    const first = jsonOf(await sender.send(signAsPrincipal(sender.baseUrl, fixture.person, { body: terminateBody() })), 200, 'terminate');
    const terminateMs = performance.now() - t0;
    const residual = first['token_residual'] as Record<string, unknown>;
    console.log(`  terminate answered in ${fixed(terminateMs)} ms with token_residual ${JSON.stringify(residual)}`);
    let confirmed = Number(residual['revocation_confirmed']);
    let polls = 0;
    const deadline = t0 + 300_000;
    while (confirmed < tokens && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const late = jsonOf(await sender.send(signAsPrincipal(sender.baseUrl, fixture.person, { body: terminateBody() })), 200, 'late terminate');
      confirmed = Number((late['token_residual'] as Record<string, unknown>)['revocation_confirmed']);
      polls++;
    }
    const allConfirmedMs = performance.now() - t0;
    const calls = [...endpoint.firstCallAt.values()];
    const lastCallMs = calls.length > 0 ? Math.max(...calls) - t0 : Number.NaN;
    if (confirmed < tokens) {
      console.log(`  NOT all confirmed after ${fixed(allConfirmedMs / 1000, 1)} s: ${thousands(confirmed)} of ${thousands(tokens)}`);
      context.results.set('revocation.errors', tokens - confirmed);
      return;
    }
    console.log(
      `  all ${thousands(tokens)} recorded confirmed ${fixed(allConfirmedMs)} ms after terminate was sent (read back every 100 ms with a later terminate, ${polls} reads) = ` +
        `${fixed(tokens / (allConfirmedMs / 1000))} revocations/s; the endpoint saw its last first-call ${fixed(lastCallMs)} ms after terminate (${thousands(endpoint.calls)} calls in all)`,
    );
    console.log(`  revocation settings: ${context.revocationSettings ?? 'PS defaults'}`);
    context.results.set('revocation.all_confirmed_ms', allConfirmedMs);
  },
};
