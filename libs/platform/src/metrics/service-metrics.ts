import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The service's own Prometheus registry (not prom-client's global one), so two services started in
 * one process — as the e2e tests do — never collide. Other modules add their metrics to `registry`.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(serviceName: string) {
    this.registry.setDefaultLabels({ service: serviceName });
    collectDefaultMetrics({ register: this.registry });
    this.httpRequestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its response, by method, matched route and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  /**
   * `route` must be the route pattern (`/mission/pending/:id`), never the raw path: raw paths carry ids
   * and would grow one time series per id. Unmatched requests share the label `unmatched`.
   */
  observeHttpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    this.httpRequestDuration.observe(
      { method: KNOWN_METHODS.has(method) ? method : 'OTHER', route: route ?? 'unmatched', status_code: String(statusCode) },
      seconds,
    );
  }
}
