import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { decodeJwt } from 'jose';
import type { EventStore } from '@mission/event-store';
import { startTracing, type RunningService, type Tracing } from '@mission/platform';
import { missionStreamName, tokensStreamName } from '@mission/ps-domain';
import { alice, eventually, events, newAgent, PsClient, requestId } from '../testing/ps-http.spec-helper.js';
import { FakeResource } from '../testing/fake-resource.js';
import { hwkSignatureKey, signedRequest } from '../testing/signed-request.spec-helper.js';
import { testBaseUrl } from '../testing/run-person-server.js';
import { authToken, startWithFakeResource, type PersonServerWithResource } from '../testing/tokens.spec-helper.js';

/**
 * ADR 0050 (issue 18 Bar): a terminate that arrives with a W3C `traceparent` leaves that trace id in the metadata of
 * the events it causes — the termination, the revocation work the process manager runs later, its attempts and
 * results — and the revocation call to the resource carries a `traceparent` of the same trace, as a child span.
 * Spans are collected by the SDK's in-memory exporter (the same NodeSDK set-up as production, minus OTLP).
 */
const exporter = new InMemorySpanExporter();
const resource = new FakeResource();
let tracing: Tracing | undefined;
let server: PersonServerWithResource;
let service: RunningService;
let store: EventStore;
const ps = new PsClient(() => service);
const REVOCATION = { wait_ms: 5_000, max_attempts: 3, initial_delay_ms: 100, max_delay_ms: 300, timeout_ms: 2_000, lease_ms: 5_000, per_resource_per_second: 1_000, concurrency: 4 };

beforeAll(async () => {
  tracing = startTracing({ serviceName: 'person-server', env: {}, exporter });
  server = await startWithFakeResource(resource, 'trace', { revocation: REVOCATION });
  ({ service, store } = server);
});

afterAll(async () => {
  await server.stop();
  await tracing?.shutdown();
});

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

describe('ADR 0050: the trace of a request reaches its events and the PS revocation calls', () => {
  it('spec 4.2 / 4.4 rule 1: terminate with traceparent → events carry its trace id and request id; the revocation call carries a child traceparent', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const reply = await authToken(ps, agent, s256);
    expect(reply.status).toBe(200);
    const jti = String(decodeJwt(String(reply.json['auth_token'])).jti);

    const traceId = hex(16);
    const callerSpanId = hex(8);
    const xRequestId = `trace-e2e-${hex(4)}`;
    const body = JSON.stringify({ operation: 'terminate', mission_s256: s256, reason: 'revoked', request_id: requestId() });
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), signedUrl: testBaseUrl, created: Math.floor(Date.now() / 1000), nonce: hex(12), body });
    request.headers['traceparent'] = `00-${traceId}-${callerSpanId}-01`;
    request.headers['x-request-id'] = xRequestId;
    const terminated = await ps.send(request);
    expect(terminated.status).toBe(200);
    expect(terminated.headers['x-request-id']).toBe(xRequestId);

    // The termination itself, written while the request ran.
    const missionEvents = await events(store, missionStreamName(s256));
    const termination = missionEvents.find((event) => event.type === 'MissionTerminated');
    expect(termination?.metadata).toMatchObject({ request_id: xRequestId, trace_id: traceId });

    // The revocation call, made by the process manager (in its own loop, not the request's async context).
    await eventually(() => resource.calls.some((call) => call.jti === jti));
    const call = resource.calls.find((entry) => entry.jti === jti)!;
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(call.traceparent ?? '');
    expect(match?.[1]).toBe(traceId);
    const clientSpanId = match![2]!;
    expect(clientSpanId).not.toBe(callerSpanId);

    // Attempts and results recorded by that work carry the same trace.
    await eventually(async () => (await events(store, tokensStreamName(s256))).some((event) => event.type === 'TokenRevocationConfirmed'));
    const revocationEvents = (await events(store, tokensStreamName(s256))).filter((event) => event.type.startsWith('TokenRevocation'));
    expect(revocationEvents.length).toBeGreaterThan(0);
    for (const event of revocationEvents) expect(event.metadata['trace_id']).toBe(traceId);

    // Spans: the server span is a child of the caller's span; the client span of the call is in the same trace.
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    const serverSpan = spans.find((span) => span.kind === SpanKind.SERVER);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(callerSpanId);
    expect(serverSpan?.name).toBe('POST /mission');
    const clientSpan = spans.find((span) => span.kind === SpanKind.CLIENT && span.spanContext().spanId === clientSpanId);
    expect(clientSpan?.attributes['http.response.status_code']).toBe(200);
  });

  it('ADR 0082: status reads decided and appended in one group commit each carry their own request\'s id and trace', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const sent = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const request = await ps.agentSigned(agent, { body: { operation: 'status', mission_s256: s256 } });
        const ids = { requestId: `status-${index}-${hex(4)}`, traceId: hex(16) };
        request.headers['x-request-id'] = ids.requestId;
        request.headers['traceparent'] = `00-${ids.traceId}-${hex(8)}-01`;
        return { request, ids };
      }),
    );
    const replies = await Promise.all(sent.map(({ request }) => ps.send(request)));
    for (const reply of replies) expect(reply.status).toBe(200);
    const reads = (await events(store, missionStreamName(s256))).filter((event) => event.type === 'MissionStatusRead');
    expect(reads).toHaveLength(sent.length);
    // Each read's metadata names the request that asked for it, whichever caller's drain appended the group.
    const traceOf = new Map(reads.map((event) => [event.metadata['request_id'], event.metadata['trace_id']]));
    for (const { ids } of sent) expect(traceOf.get(ids.requestId)).toBe(ids.traceId);
  });

  it('ADR 0050: a request without traceparent still gets a trace of its own, and its request id lands in the events', async () => {
    const agent = await newAgent();
    const { s256 } = await ps.approvedMission(agent);
    const missionEvents = await events(store, missionStreamName(s256));
    const approved = missionEvents.at(-1)!;
    expect(typeof approved.metadata['request_id']).toBe('string');
    expect(approved.metadata['trace_id']).toMatch(/^[0-9a-f]{32}$/);
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === approved.metadata['trace_id']);
    expect(spans.some((span) => span.kind === SpanKind.SERVER && span.parentSpanContext === undefined)).toBe(true);
  });
});
