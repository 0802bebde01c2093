import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, ReadinessRegistry, SERVICE_SETTINGS, ServiceMetrics, StoredModelRunner, type Logger, type ServiceSettings } from '@mission/platform';
import { MissionIndexProjection, type MissionIndexEntry } from './mission-index.projection.js';
import { MissionIndexStore, type IndexScope } from './mission-index.store.js';

/** The index's file under DATA_DIR (ADR 0087): derived from the `MissionApproved` events, safe to delete while stopped. */
export const MISSION_INDEX_FILE = join('read-models', 'mission-index.sqlite');

/** How long a listing waits for the projection to reach the store's head (read-your-writes across replicas). */
const CATCH_UP_MS = 5_000;

/**
 * Runs {@link MissionIndexProjection} with the app, registered for readiness and metrics. The index is kept in
 * DATA_DIR/read-models/mission-index.sqlite and resumes from the position stored there (ADR 0087).
 */
@Injectable()
export class MissionIndexReadModel implements OnModuleInit, OnApplicationShutdown {
  private readonly projection: MissionIndexProjection;
  private readonly model: StoredModelRunner;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(SERVICE_SETTINGS) settings: ServiceSettings,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    const log = logger.child({ component: 'mission-index' });
    const file = join(settings.dataDir, MISSION_INDEX_FILE);
    this.projection = new MissionIndexProjection(MissionIndexStore.open(file, { onRecreated: (reason) => log.warn({ file }, `mission index: ${reason}; rebuilding it from the store`) }));
    this.model = new StoredModelRunner(store, this.projection, log);
  }

  async onModuleInit(): Promise<void> {
    await this.model.start(this.readiness, this.metrics);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.model.stop();
  }

  /** Waits until the index holds every approval committed before the call: a mission just approved is listed. */
  async catchUp(): Promise<void> {
    await this.model.runner.waitUntilCaughtUp(CATCH_UP_MS);
  }

  /** At most `limit` missions of `scope` strictly after `after`, newest first (call `catchUp` first). */
  page(scope: IndexScope, after: Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'> | undefined, limit: number): MissionIndexEntry[] {
    return this.projection.page(scope, after, limit);
  }

  entry(missionS256: string): MissionIndexEntry | undefined {
    return this.projection.entry(missionS256);
  }
}
