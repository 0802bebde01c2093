import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ProjectionRunner } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, projectionReadinessCheck, ReadinessRegistry, type Logger } from '@mission/platform';
import { MissionIndexProjection, type MissionIndexEntry } from './mission-index.projection.js';

/** How long a listing waits for the projection to reach the store's head (read-your-writes across replicas). */
const CATCH_UP_MS = 5_000;

/** Runs {@link MissionIndexProjection} with the app, registered for readiness. */
@Injectable()
export class MissionIndexReadModel implements OnModuleInit, OnApplicationShutdown {
  private readonly projection = new MissionIndexProjection();
  private readonly runner: ProjectionRunner;

  constructor(@Inject(EVENT_STORE) store: EventStore, @Inject(LOGGER) logger: Logger, private readonly readiness: ReadinessRegistry) {
    this.runner = new ProjectionRunner(store, this.projection, { logger: logger.child({ component: 'mission-index' }) });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(projectionReadinessCheck(this.runner));
    await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** The approved missions as of (at least) the store's head when called: a mission just approved is listed. */
  async current(): Promise<MissionIndexEntry[]> {
    await this.runner.waitUntilCaughtUp(CATCH_UP_MS);
    return this.projection.ordered();
  }
}
