import { pino, stdSerializers, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import type { RequestTrace } from '@mission/es-kit';
import type { LogLevel } from '../config/service-settings.js';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  readonly serviceName: string;
  readonly level: LogLevel;
  /** Defaults to standard output, written synchronously so the last lines before an exit are never lost. */
  readonly destination?: DestinationStream;
}

/** One JSON object per line: `level` as a word, ISO time, the service name on every line. */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.serviceName },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: stdSerializers.err },
    },
    options.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

/**
 * The members that tie a log line to a request or the work it caused (ADR 0050): for `logger.child(...)` or a
 * line's own object. Handed the trace explicitly (ADR 0082): no line is stamped from an ambient store.
 */
export function traceLogFields(trace: RequestTrace | undefined): Record<string, string> {
  if (trace === undefined) return {};
  return {
    ...(trace.requestId !== undefined ? { request_id: trace.requestId } : {}),
    ...(trace.traceId !== undefined ? { trace_id: trace.traceId } : {}),
    ...(trace.spanId !== undefined ? { span_id: trace.spanId } : {}),
  };
}
