import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { NextFunction, Request, Response } from 'express';
import { runWithRequestTrace, type RequestTrace } from '@mission/es-kit';

const TRACER = 'mission-platform';
/**
 * W3C Trace Context is read even while tracing is off (no SDK: the API's tracer is a no-op that passes the
 * caller's span context through): the events of a request then still carry the caller's trace id (ADR 0050).
 */
const w3c = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (carrier: Request) => Object.keys(carrier.headers),
  get: (carrier: Request, key: string) => carrier.headers[key],
};

const SPAN = Symbol('request span');
type TracedResponse = Response & { [SPAN]?: { span: Span; trace: RequestTrace; active: ReturnType<typeof context.active> } };

/**
 * First middleware: the request's server span, child of an incoming `traceparent` (the HTTP instrumentation's
 * span when it patched the server), ended with the status and the matched route when the response ends.
 * Needs `res.locals.requestId` (set by `observeRequests`, which runs before it).
 */
export function traceRequests() {
  return (request: Request, response: Response, next: NextFunction): void => {
    const instrumented = trace.getActiveSpan();
    const parent = instrumented !== undefined ? context.active() : w3c.extract(ROOT_CONTEXT, request, headerGetter);
    const span = instrumented ?? trace.getTracer(TRACER).startSpan(`${request.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } }, parent);
    const spanContext = span.spanContext();
    const requestId = response.locals['requestId'] as string | undefined;
    const requestTrace: RequestTrace = {
      ...(requestId !== undefined ? { requestId } : {}),
      ...(isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId, traceFlags: spanContext.traceFlags } : {}),
    };
    response.locals['trace'] = requestTrace;
    (response as TracedResponse)[SPAN] = { span, trace: requestTrace, active: trace.setSpan(parent, span) };
    if (instrumented === undefined) {
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        const route = (request as Request & { route?: { path?: unknown } }).route;
        if (route !== undefined && typeof route.path === 'string') {
          span.updateName(`${request.method} ${request.baseUrl}${route.path}`);
          span.setAttribute('http.route', `${request.baseUrl}${route.path}`);
        }
        span.setAttribute('http.response.status_code', response.statusCode);
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      response.once('finish', end);
      response.once('close', end);
    }
    bindTrace(request, response, next);
  };
}

/**
 * Runs the rest of the request in its trace: the OpenTelemetry context (outgoing calls, child spans) and the
 * request trace (event metadata, log lines). Installed again after the body parsers, whose stream callbacks
 * run outside the middleware's async context.
 */
export function bindTrace(_request: Request, response: Response, next: NextFunction): void {
  const traced = (response as TracedResponse)[SPAN];
  if (traced === undefined) return next();
  runWithRequestTrace(traced.trace, () => context.with(traced.active, next));
}
