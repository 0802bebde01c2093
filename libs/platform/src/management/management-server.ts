import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ReadinessRegistry } from '../health/readiness.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { liveness, readinessAnswer } from './management-answers.js';

export interface ManagementServer {
  readonly server: Server;
  readonly port: number;
}

/**
 * The MANAGEMENT_PORT listener (ADR 0045): /metrics, /healthz and /readyz only, GET or HEAD, no body
 * parsing, no routing framework — a scrape or a probe must keep working while the public port is saturated,
 * and nothing of the public API is reachable here. It binds all interfaces like the public port; the
 * network (a NetworkPolicy, a firewall) decides who may reach it.
 */
export async function startManagementServer(port: number, readiness: ReadinessRegistry, metrics: ServiceMetrics, logger: Logger): Promise<ManagementServer> {
  const server = createServer((request, response) => {
    answer(request, response, readiness, metrics).catch((error: unknown) => {
      logger.error({ err: error, path: pathOf(request) }, 'management request failed');
      if (!response.headersSent) send(response, 500, 'application/json; charset=utf-8', JSON.stringify({ error: 'server_error' }));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

async function answer(request: IncomingMessage, response: ServerResponse, readiness: ReadinessRegistry, metrics: ServiceMetrics): Promise<void> {
  const path = pathOf(request);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return send(response, 405, 'application/json; charset=utf-8', JSON.stringify({ error: 'method_not_allowed' }));
  }
  switch (path) {
    case '/metrics':
      return send(response, 200, metrics.registry.contentType, await metrics.registry.metrics());
    case '/healthz':
      return send(response, 200, 'application/json; charset=utf-8', JSON.stringify(liveness()));
    case '/readyz': {
      const ready = await readinessAnswer(readiness);
      return send(response, ready.status, 'application/json; charset=utf-8', JSON.stringify(ready.body));
    }
    default:
      return send(response, 404, 'application/json; charset=utf-8', JSON.stringify({ error: 'not_found' }));
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function pathOf(request: IncomingMessage): string {
  return (request.url ?? '/').split('?')[0]!;
}
