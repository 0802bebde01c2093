import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, ReadinessRegistry, SERVICE_SETTINGS, ServiceMetrics, StoredModelRunner, type Logger, type ServiceSettings } from '@mission/platform';
import { PendingProposalsProjection, type PendingProposalEntry } from './pending-proposals.projection.js';
import { PendingProposalsStore } from './pending-proposals.store.js';

/** The model's file under DATA_DIR (ADR 0088): derived from the proposal streams, safe to delete while stopped. */
export const PENDING_PROPOSALS_FILE = join('read-models', 'pending-proposals.sqlite');

/** How long a listing waits for the projection to reach the store's head (read-your-writes across replicas). */
const CATCH_UP_MS = 5_000;

/**
 * Runs {@link PendingProposalsProjection} with the app, registered for readiness and metrics. The model is kept in
 * DATA_DIR/read-models/pending-proposals.sqlite and resumes from the position stored there (ADR 0088).
 */
@Injectable()
export class PendingProposalsReadModel implements OnModuleInit, OnApplicationShutdown {
  private readonly projection: PendingProposalsProjection;
  private readonly model: StoredModelRunner;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(LOGGER) logger: Logger,
    @Inject(SERVICE_SETTINGS) settings: ServiceSettings,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    const log = logger.child({ component: 'pending-proposals' });
    const file = join(settings.dataDir, PENDING_PROPOSALS_FILE);
    this.projection = new PendingProposalsProjection(PendingProposalsStore.open(file, { onRecreated: (reason) => log.warn({ file }, `pending proposals model: ${reason}; rebuilding it from the store`) }));
    this.model = new StoredModelRunner(store, this.projection, log);
  }

  async onModuleInit(): Promise<void> {
    await this.model.start(this.readiness, this.metrics);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.model.stop();
  }

  /** Waits until the model holds every proposal event committed before the call: a proposal just submitted is listed. */
  async catchUp(): Promise<void> {
    await this.model.runner.waitUntilCaughtUp(CATCH_UP_MS);
  }

  /** At most `limit` pending proposals of `agents` strictly after `after`, oldest first (call `catchUp` first). */
  page(agents: Iterable<string>, after: Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'> | undefined, limit: number): PendingProposalEntry[] {
    return this.projection.page(agents, after, limit);
  }
}
