import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { comparePositions, type EventStore } from '@mission/event-store';
import { ProjectionRunner } from '@mission/es-kit';
import { EVENT_STORE, LOGGER, projectionReadinessCheck, ReadinessRegistry, ServiceMetrics } from '@mission/platform';
import type { Logger } from 'pino';
import { MissionTreeProjection } from './mission-tree.projection.js';

/** How long `/missions/tree` waits for the model to apply what was committed before the request. */
const CATCH_UP_WAIT_MS = 2_000;
const POLL_MS = 10;

/**
 * Runs the MissionTreeProjection with the app (rebuilt from the `mission` category on every start) and
 * registers it for readiness.
 */
@Injectable()
export class MissionTreeReadModel implements OnModuleInit, OnApplicationShutdown {
  readonly projection = new MissionTreeProjection();
  private readonly runner: ProjectionRunner;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) logger: Logger,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    this.runner = new ProjectionRunner(store, this.projection, { logger: logger.child({ component: 'mission-tree' }) });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(projectionReadinessCheck(this.runner));
    this.metrics.watchProjection(this.runner);
    await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /**
   * Waits (briefly) until every mission event committed before the call is applied, so an answer
   * normally reflects the store as of the request. False when the model is still behind after the wait;
   * the answer then says so. Throws if the projection stopped on an event it could not apply.
   */
  async catchUp(waitMs = CATCH_UP_WAIT_MS): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    const target = await this.store.headPosition({ streamCategories: this.projection.categories });
    for (;;) {
      if (await this.runner.isCaughtUp()) return true;
      // Events committed after the request began need not hold the answer back.
      const applied = this.projection.appliedPosition;
      if (target === undefined || (applied !== undefined && comparePositions(applied, target) >= 0)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
