import type { JsonObject } from '@mission/event-store';

/**
 * What ties an HTTP request to everything it causes (ADR 0050): the request's id (`X-Request-Id`, as logged
 * and answered) and, when the request is part of a W3C trace, the trace id and the id of the span that was
 * active (the span the follow-up work — process managers, outgoing calls — becomes a child of).
 * Handed along explicitly — in a command's context, a work item, an outgoing call — never held in an
 * `AsyncLocalStorage` (ADR 0082: on Node 20 its promise hooks cost every promise of the process).
 */
export interface RequestTrace {
  readonly requestId?: string;
  /** 32 lower-case hex digits, never all zero (W3C Trace Context). */
  readonly traceId?: string;
  /** 16 lower-case hex digits, never all zero. */
  readonly spanId?: string;
  /** W3C trace flags; bit 0 is `sampled`. */
  readonly traceFlags?: number;
}

/** The event metadata members a RequestTrace becomes (absent members are left out, never `null`). */
export type TraceMetadata = { request_id?: string; trace_id?: string; span_id?: string; trace_flags?: number } & JsonObject;

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;
/** Same bound as the platform's request-id check: short and harmless in a log line or a metadata member. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function traceMetadata(trace: RequestTrace | undefined): TraceMetadata {
  if (trace === undefined) return {};
  const metadata: TraceMetadata = {};
  if (trace.requestId !== undefined) metadata.request_id = trace.requestId;
  if (trace.traceId !== undefined && trace.spanId !== undefined) {
    metadata.trace_id = trace.traceId;
    metadata.span_id = trace.spanId;
    if (trace.traceFlags !== undefined) metadata.trace_flags = trace.traceFlags;
  }
  return metadata;
}

/**
 * The trace recorded on an event, for work that event causes later (a process manager's follow-up).
 * Members that do not have the W3C shape are ignored: stored metadata is input like any other.
 */
export function traceFromMetadata(metadata: JsonObject): RequestTrace | undefined {
  const requestId = typeof metadata['request_id'] === 'string' && REQUEST_ID.test(metadata['request_id']) ? metadata['request_id'] : undefined;
  const traceId = metadata['trace_id'];
  const spanId = metadata['span_id'];
  const flags = metadata['trace_flags'];
  const traced = typeof traceId === 'string' && TRACE_ID.test(traceId) && typeof spanId === 'string' && SPAN_ID.test(spanId);
  if (requestId === undefined && !traced) return undefined;
  return {
    ...(requestId !== undefined ? { requestId } : {}),
    ...(traced ? { traceId, spanId, ...(typeof flags === 'number' && Number.isInteger(flags) && flags >= 0 && flags <= 255 ? { traceFlags: flags } : {}) } : {}),
  };
}
