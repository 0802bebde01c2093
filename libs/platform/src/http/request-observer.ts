import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

/** A caller-supplied id is kept only if it is short and harmless in a log line. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Probes and scrapes hit these every few seconds; their successes are logged at debug so real traffic stays readable. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const MAX_LOGGED_PATH = 512;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Times every request and, when it ends, writes one log line (method, path, status, duration, request
 * id) and one histogram observation. Bodies, query strings and headers are never logged: they carry
 * codes, tokens, `Authorization`, `DPoP` and `Signature` values.
 */
export function observeRequests(logger: Logger, metrics: ServiceMetrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const offered = request.get(REQUEST_ID_HEADER);
    const requestId = offered !== undefined && ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
    response.locals['requestId'] = requestId;
    response.setHeader(REQUEST_ID_HEADER, requestId);

    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = request.originalUrl.split('?')[0]!.slice(0, MAX_LOGGED_PATH);
      const route = matchedRoute(request);
      const completed = response.writableFinished;
      metrics.observeHttpRequest(request.method, route, response.statusCode, seconds);
      const trace = response.locals['trace'] as { traceId?: string; spanId?: string } | undefined;
      const line = {
        request_id: requestId,
        // ADR 0050: the request's own line names its trace too (it is written after the request's async context ended).
        ...(trace?.traceId !== undefined ? { trace_id: trace.traceId, span_id: trace.spanId } : {}),
        method: request.method,
        path,
        status: response.statusCode,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        ...(completed ? {} : { aborted: true }),
      };
      if (response.statusCode >= 500) logger.error(line, 'request');
      else if (PROBE_PATHS.has(path) && response.statusCode < 400) logger.debug(line, 'request');
      else logger.info(line, 'request');
    };
    response.once('finish', record);
    response.once('close', record);
    next();
  };
}

/** The route pattern Express matched (`/mission/pending/:id`), or undefined when none did. */
function matchedRoute(request: Request): string | undefined {
  const route = (request as Request & { route?: { path?: unknown } }).route;
  if (!route || typeof route.path !== 'string') return undefined;
  return `${request.baseUrl}${route.path}`;
}
