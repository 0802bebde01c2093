import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestTrace } from '@mission/es-kit';

const TRACER = 'mission-platform';
/**
 * W3C Trace Context is read even while tracing is off (no SDK: the API's tracer is a no-op that passes the
 * caller's span context through): the events of a request then still carry the caller's trace id (ADR 0050).
 */
const w3c = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (carrier: FastifyRequest) => Object.keys(carrier.headers),
  get: (carrier: FastifyRequest, key: string) => carrier.headers[key],
};

interface TracedRequest {
  readonly span: Span;
  readonly trace: RequestTrace;
  readonly active: ReturnType<typeof context.active>;
}
const traced = new WeakMap<FastifyRequest, TracedRequest>();

/**
 * The trace of a request, once `traceRequests` ran: what a controller hands down to the commands, work and log
 * lines the request causes (ADR 0050, passed explicitly: ADR 0082).
 */
export function requestTraceOf(request: FastifyRequest): RequestTrace | undefined {
  return traced.get(request)?.trace;
}

/**
 * The request's server span, child of an incoming `traceparent` (the HTTP instrumentation's span when it patched
 * the server), ended with the status and the matched route when the response ends; the request trace made from it
 * is kept for `requestTraceOf`. The rest of the request runs in the span's OpenTelemetry context (child spans of
 * instrumentations; a no-op while tracing is off). The binding is made in `preHandler`, after the body is read:
 * stream callbacks of the body run outside the hook's async context.
 */
export function traceRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const instrumented = trace.getActiveSpan();
    const parent = instrumented !== undefined ? context.active() : w3c.extract(ROOT_CONTEXT, request, headerGetter);
    const span = instrumented ?? trace.getTracer(TRACER).startSpan(`${request.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } }, parent);
    const spanContext = span.spanContext();
    const requestTrace: RequestTrace = {
      requestId: request.id,
      ...(isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId, traceFlags: spanContext.traceFlags } : {}),
    };
    traced.set(request, { span, trace: requestTrace, active: trace.setSpan(parent, span) });
    // A span that records nothing (tracing off: the API's no-op tracer; or not sampled) has nothing to end or name:
    // no listeners on the response for it (two per request, issue 15).
    if (instrumented === undefined && span.isRecording()) {
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        const route = request.routeOptions.url;
        if (route !== undefined) {
          span.updateName(`${request.method} ${route}`);
          span.setAttribute('http.route', route);
        }
        span.setAttribute('http.response.status_code', reply.raw.statusCode);
        if (reply.raw.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      reply.raw.once('finish', end);
      reply.raw.once('close', end);
    }
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const found = traced.get(request);
    if (found === undefined) return done();
    context.with(found.active, done);
  });
}
