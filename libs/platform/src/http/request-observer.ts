import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { traceLogFields } from '../logging/create-logger.js';
import { requestTraceOf } from '../tracing/trace-requests.js';

/** Probes and scrapes hit these every few seconds; their successes are logged at debug so real traffic stays readable. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const MAX_LOGGED_PATH = 512;

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** A caller-supplied id is kept only if it is short and harmless in a log line. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id (Fastify's `genReqId`): the caller's `X-Request-Id` when acceptable, else a UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const offered = request.headers[REQUEST_ID_HEADER.toLowerCase()];
  return typeof offered === 'string' && ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
}

/**
 * Times every request and, when it ends, writes one log line (method, path, status, duration, request
 * id) and one histogram observation. Bodies, query strings and headers are never logged: they carry
 * codes, tokens, `Authorization`, `DPoP` and `Signature` values. The request id is Fastify's `request.id`
 * (`requestIdOf`), echoed in the answer.
 */
export function observeRequests(fastify: FastifyInstance, logger: Logger, metrics: ServiceMetrics): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const started = process.hrtime.bigint();
    reply.header(REQUEST_ID_HEADER, request.id);
    const response = reply.raw;
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = pathOf(request).slice(0, MAX_LOGGED_PATH);
      const completed = response.writableFinished;
      metrics.observeHttpRequest(request.method, request.routeOptions.url, response.statusCode, seconds);
      const trace = requestTraceOf(request);
      const line = {
        request_id: request.id,
        // ADR 0050: the request's own line names its trace, as every line written for the request does.
        ...traceLogFields(trace),
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
    done();
  });
}

/** The request's path without its query (Express's `request.path`). */
export function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
