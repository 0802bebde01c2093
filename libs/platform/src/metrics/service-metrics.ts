import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A projection further behind than this reports this many: counting is a read, bounded per scrape. */
export const PROJECTION_LAG_LIMIT = 10_000;

/** What the metrics read of a projection runner (es-kit's ProjectionRunner). */
export interface WatchedProjection {
  readonly name: string;
  lagEvents(limit: number): Promise<number>;
}

/** What the metrics read of a process manager runner (es-kit's ProcessManagerRunner). */
export interface WatchedProcessManager {
  readonly name: string;
  openWork(): ReadonlyMap<string, unknown>;
}

export type AppendOutcome = 'ok' | 'refused' | 'error';

/**
 * The service's own Prometheus registry (not prom-client's global one), so two services started in
 * one process — as the e2e tests do — never collide. Other modules add their metrics to `registry`.
 * The families both services share live here: HTTP, the event store's appends, projection lag and
 * process manager backlog (ADR 0046).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly appendSeconds: Histogram<'outcome'>;
  private readonly projections = new Map<string, WatchedProjection>();
  private readonly processManagers = new Map<string, WatchedProcessManager>();

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
    this.appendSeconds = new Histogram({
      name: 'event_store_append_seconds',
      help: 'Time of one append call to the event store (one stream or several), by outcome: ok, refused (expected revision or tombstone), error',
      labelNames: ['outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    const projections = this.projections;
    new Gauge({
      name: 'projection_lag_events',
      help: `Events of a projection's categories not yet applied, counted at scrape time (at most ${PROJECTION_LAG_LIMIT})`,
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [name, runner] of projections) this.set({ projection: name }, await runner.lagEvents(PROJECTION_LAG_LIMIT));
      },
    });
    const processManagers = this.processManagers;
    new Gauge({
      name: 'process_manager_backlog',
      help: 'Open work items (scheduled, claimed or waiting for a retry) of a process manager, as this replica sees them',
      labelNames: ['manager'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [name, runner] of processManagers) this.set({ manager: name }, runner.openWork().size);
      },
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

  observeAppend(outcome: AppendOutcome, seconds: number): void {
    this.appendSeconds.observe({ outcome }, seconds);
  }

  /** Reports the projection's lag as `projection_lag_events{projection}`. */
  watchProjection(runner: WatchedProjection): void {
    this.projections.set(runner.name, runner);
  }

  /**
   * Reports the manager's open work as `process_manager_backlog{manager}` and, when `alsoAs` names one, as
   * a service-specific gauge of its own (`issuer_cascade_backlog`, `ps_revocation_backlog`).
   */
  watchProcessManager(runner: WatchedProcessManager, alsoAs?: { readonly name: string; readonly help: string }): void {
    this.processManagers.set(runner.name, runner);
    if (alsoAs === undefined) return;
    new Gauge({
      name: alsoAs.name,
      help: alsoAs.help,
      registers: [this.registry],
      collect() {
        this.set(runner.openWork().size);
      },
    });
  }
}
