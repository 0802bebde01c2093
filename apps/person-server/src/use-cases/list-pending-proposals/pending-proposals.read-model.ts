import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ProjectionRunner } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, projectionReadinessCheck, ReadinessRegistry, ServiceMetrics, type Logger } from '@mission/platform';
import { PendingProposalsProjection, type PendingProposalEntry } from './pending-proposals.projection.js';

/** How long a listing waits for the projection to reach the store's head (read-your-writes across replicas). */
const CATCH_UP_MS = 5_000;

/** Runs {@link PendingProposalsProjection} with the app, registered for readiness. */
@Injectable()
export class PendingProposalsReadModel implements OnModuleInit, OnApplicationShutdown {
  private readonly projection = new PendingProposalsProjection();
  private readonly runner: ProjectionRunner;

  constructor(@Inject(EVENT_STORE) store: EventStore, @Inject(LOGGER) logger: Logger, private readonly readiness: ReadinessRegistry, private readonly metrics: ServiceMetrics) {
    this.runner = new ProjectionRunner(store, this.projection, { logger: logger.child({ component: 'pending-proposals' }) });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(projectionReadinessCheck(this.runner));
    this.metrics.watchProjection(this.runner);
    await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** The pending proposals as of (at least) the store's head when called: a proposal just submitted is listed. */
  async current(): Promise<PendingProposalEntry[]> {
    await this.runner.waitUntilCaughtUp(CATCH_UP_MS);
    return this.projection.ordered();
  }
}
