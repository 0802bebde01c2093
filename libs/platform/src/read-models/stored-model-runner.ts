import { ProjectionRunner, type Projection } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { projectionReadinessCheck } from '../health/projection-readiness.js';
import type { ReadinessRegistry } from '../health/readiness.js';
import type { Logger } from '../logging/create-logger.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

/**
 * Runs, with the service, a projection whose model lives in a file of its own and stores its position there
 * (ADR 0086–0088): registered for readiness and lag metrics at start, its file closed after the runner stopped.
 */
export class StoredModelRunner {
  readonly runner: ProjectionRunner;

  constructor(
    store: EventStore,
    private readonly projection: Projection & { close(): void },
    logger: Logger,
  ) {
    // The model commits on its own timer (BatchedModelWrites); a checkpoint every 500 events would commit far more often.
    this.runner = new ProjectionRunner(store, projection, { logger, checkpointEvery: 20_000 });
  }

  async start(readiness: ReadinessRegistry, metrics: ServiceMetrics): Promise<void> {
    readiness.register(projectionReadinessCheck(this.runner));
    metrics.watchProjection(this.runner);
    await this.runner.start();
  }

  async stop(): Promise<void> {
    await this.runner.stop();
    this.projection.close();
  }
}
