import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ExpressAdapter } from '@nestjs/platform-express';

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

/**
 * Nest's Express adapter creates the HTTP server without options, and Node checks header and request
 * timeouts only every `connectionsCheckingInterval` (default 30 s): the server is created here instead, with
 * the timeouts and an interval fine enough for them.
 */
export class LimitedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: HttpServerLimits) {
    super();
  }

  override initHttpServer(): void {
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnectionsPerSource } = this.limits;
    const server = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        keepAliveTimeout: keepAliveTimeoutMs,
        connectionsCheckingInterval: checkingInterval(this.limits),
      },
      this.getInstance(),
    );
    if (maxConnectionsPerSource > 0) capConnectionsPerSource(server, maxConnectionsPerSource);
    this.httpServer = server;
  }
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
