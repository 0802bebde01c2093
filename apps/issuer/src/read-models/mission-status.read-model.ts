import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { ProjectionRunner } from '@mission/es-kit';
import { EVENT_STORE, LOGGER, projectionReadinessCheck, ReadinessRegistry, ServiceMetrics } from '@mission/platform';
import type { Logger } from 'pino';
import { MissionStatusProjection } from './mission-status.projection.js';

/** Runs the MissionStatusProjection with the app (rebuilt from the `mission` category on every start), registered for readiness. */
@Injectable()
export class MissionStatusReadModel implements OnModuleInit, OnApplicationShutdown {
  private readonly runner: ProjectionRunner;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    readonly statuses: MissionStatusProjection,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    this.runner = new ProjectionRunner(store, statuses, { logger: logger.child({ component: 'missions' }) });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(projectionReadinessCheck(this.runner));
    this.metrics.watchProjection(this.runner);
    await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
