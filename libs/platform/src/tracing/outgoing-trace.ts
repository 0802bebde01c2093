import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { RequestTrace } from '@mission/es-kit';

const w3c = new W3CTraceContextPropagator();
const headerSetter = { set: (carrier: Record<string, string>, key: string, value: string) => { carrier[key] = value; } };

/**
 * Runs an outgoing HTTP call as a client span of `requestTrace` (the request itself, or the process-manager work it
 * caused, handed down explicitly: ADR 0082) and hands `call` the W3C headers (`traceparent`, `tracestate`) to send.
 * With tracing off the caller's trace is passed on unchanged; without a trace there are no headers.
 */
export async function withOutgoingTrace<T>(
  requestTrace: RequestTrace | undefined,
  name: string,
  url: string,
  call: (headers: Record<string, string>) => Promise<{ result: T; status?: number }>,
): Promise<T> {
  const parent = parentContext(requestTrace);
  const span = trace.getTracer('mission-platform').startSpan(name, { kind: SpanKind.CLIENT, attributes: { 'url.full': url, 'http.request.method': 'POST' } }, parent);
  const headers: Record<string, string> = {};
  w3c.inject(trace.setSpan(parent, span), headers, headerSetter);
  try {
    const { result, status } = await context.with(trace.setSpan(parent, span), () => call(headers));
    if (status !== undefined) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * The request trace is authoritative: process-manager work runs in the trace recorded with it, while the
 * OpenTelemetry context of a background loop may be that of whichever request last woke it. The active span is
 * used only when it belongs to the current request trace (then the call is its child, not a sibling).
 */
function parentContext(current: RequestTrace | undefined) {
  // No trace (work no request caused): a trace of its own, never the context of whatever request woke the loop.
  if (current?.traceId === undefined || current.spanId === undefined) return ROOT_CONTEXT;
  const active = trace.getSpan(context.active());
  if (active !== undefined && isSpanContextValid(active.spanContext()) && active.spanContext().traceId === current.traceId) return context.active();
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: current.traceId, spanId: current.spanId, traceFlags: current.traceFlags ?? TraceFlags.NONE, isRemote: true });
}
