import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { comparePositions, type EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, ReadinessRegistry, SERVICE_SETTINGS, ServiceMetrics, StoredModelRunner, type ServiceSettings } from '@mission/platform';
import type { Logger } from 'pino';
import { MissionTreeProjection } from './mission-tree.projection.js';
import { MissionTreeStore } from './mission-tree.store.js';

/** The tree model's file under DATA_DIR (ADR 0086): derived from the `mission` streams, safe to delete while stopped. */
export const MISSION_TREE_FILE = join('read-models', 'mission-tree.sqlite');

/** How long `/missions/tree` waits for the model to apply what was committed before the request. */
const CATCH_UP_WAIT_MS = 2_000;
const POLL_MS = 10;

/**
 * Runs the MissionTreeProjection with the app and registers it for readiness. The model is kept in
 * DATA_DIR/read-models/mission-tree.sqlite and resumes from the position stored there (ADR 0086).
 */
@Injectable()
export class MissionTreeReadModel implements OnModuleInit, OnApplicationShutdown {
  readonly projection: MissionTreeProjection;
  private readonly model: StoredModelRunner;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(SERVICE_SETTINGS) settings: ServiceSettings,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    const log = logger.child({ component: 'mission-tree' });
    const file = join(settings.dataDir, MISSION_TREE_FILE);
    this.projection = new MissionTreeProjection(MissionTreeStore.open(file, { onRecreated: (reason) => log.warn({ file }, `mission tree model: ${reason}; rebuilding it from the store`) }));
    this.model = new StoredModelRunner(store, this.projection, log);
  }

  async onModuleInit(): Promise<void> {
    await this.model.start(this.readiness, this.metrics);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.model.stop();
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
      if (await this.model.runner.isCaughtUp()) return true;
      // Events committed after the request began need not hold the answer back.
      const applied = this.projection.appliedPosition;
      if (target === undefined || (applied !== undefined && comparePositions(applied, target) >= 0)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
