import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestListener } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorResponseFilter } from './error-response.filter.js';
import { requestIdOf } from './request-observer.js';

/**
 * How long and how often one client may hold the service's HTTP server (issue 15, item 7; ADR 0056).
 * Node's own defaults hold an incomplete request for a minute (headers) or five (body), checked only every
 * 30 s, and let one address open connections without limit: a handful of slow clients could then tie up an
 * internet-facing OAuth server's sockets and memory.
 */
export interface HttpServerLimits {
  /** Time to receive the complete request head (request line and headers); then 408 and close. */
  readonly headersTimeoutMs: number;
  /** Time to receive the complete request, body included; then 408 and close. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open after a response. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections one remote address may hold; 0 = no cap (behind a proxy that is the proxy's job). */
  readonly maxConnectionsPerSource: number;
}

/** The routes the HTTP server registered, by Fastify instance: the OpenAPI contract test compares them with the document. */
const registeredRoutes = new WeakMap<object, { method: string; url: string }[]>();

export function routesOf(instance: object): readonly { method: string; url: string }[] {
  return registeredRoutes.get(instance) ?? [];
}

/**
 * Nest's Fastify adapter (ADR 0066 replaced Express: 4.6 × less CPU per request on the same Nest controller)
 * with the HTTP server created here, with the timeouts and an interval fine enough for them (Node checks
 * header and request timeouts only every `connectionsCheckingInterval`, default 30 s), and the per-source cap.
 * The request id is the caller's `X-Request-Id` when it is short and harmless in a log line, else a UUID.
 */
export function limitedFastifyAdapter(limits: HttpServerLimits, bodyLimitBytes: number, errors: ErrorResponseFilter): FastifyAdapter {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnectionsPerSource } = limits;
  const adapter = new FastifyAdapter({
    serverFactory: (handler: RequestListener) => {
      const server = createServer(
        { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, keepAliveTimeout: keepAliveTimeoutMs, connectionsCheckingInterval: checkingInterval(limits) },
        handler,
      );
      if (maxConnectionsPerSource > 0) capConnectionsPerSource(server, maxConnectionsPerSource);
      return server;
    },
    bodyLimit: bodyLimitBytes,
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Errors Fastify raises before routing (a malformed URL) are answered like every other error.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => errors.send(error, request, reply),
    // As Express did: /par/ is /par.
    routerOptions: { ignoreTrailingSlash: true },
  });
  const routes: { method: string; url: string }[] = [];
  registeredRoutes.set(adapter.getInstance(), routes);
  adapter.getInstance().addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method: method.toLowerCase(), url: route.url });
  });
  return adapter;
}

/** A quarter of the shortest timeout, between 50 ms and 1 s: a slow client is cut at most that late. */
function checkingInterval(limits: HttpServerLimits): number {
  return Math.min(1000, Math.max(50, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/** Closes a connection at once when its remote address already holds `max` open ones. */
export function capConnectionsPerSource(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const source = socket.remoteAddress ?? 'unknown';
    const count = open.get(source) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(source, count + 1);
    socket.once('close', () => {
      const left = (open.get(source) ?? 1) - 1;
      if (left === 0) open.delete(source);
      else open.set(source, left);
    });
  });
}
