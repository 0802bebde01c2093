import { Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { ProcessManagerRunner, ProjectionRunner } from '@mission/es-kit';
import type { Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, projectionReadinessCheck, ReadinessRegistry } from '@mission/platform';
import type { Logger } from 'pino';
import { CoalescedCheckpoints, withCheckpoints } from '../children/coalesced-checkpoints.js';
import { CLOCK } from '../oauth/clock.js';
import { IntrospectionController } from './introspection.controller.js';
import { MissionAuditController } from './mission-audit.controller.js';
import { missionExpiryManager } from './mission-expiry.process-manager.js';
import { MissionLineage } from './mission-lineage.js';
import { MissionStatusProjection } from './mission-status.projection.js';
import { MissionTreeReadModel } from './mission-tree.read-model.js';
import { MissionsController } from './missions.controller.js';

/** Starts the mission read model and the expiry process manager with the app, and stops them with it. */
@Injectable()
class MissionBackgroundWork implements OnModuleInit, OnApplicationShutdown {
  private readonly projection: ProjectionRunner;
  private readonly expiry: ProcessManagerRunner;
  private readonly checkpoints: CoalescedCheckpoints;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: Logger,
    readonly statuses: MissionStatusProjection,
    private readonly readiness: ReadinessRegistry,
    lineage: MissionLineage,
  ) {
    const log = logger.child({ component: 'missions' });
    this.projection = new ProjectionRunner(store, statuses, { logger: log });
    // Its trigger checkpoint coalesced like the children runners' (one commit per event otherwise: a
    // cascade of 10,000 descendants cost this runner 10,000 commits).
    this.checkpoints = new CoalescedCheckpoints(store.checkpoints, 250, (err) => log.warn({ err }, 'could not save a process manager checkpoint; retrying'));
    this.expiry = new ProcessManagerRunner(withCheckpoints(store, this.checkpoints), missionExpiryManager(store, () => clock.now(), lineage), { clock: () => clock.now(), logger: log });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(projectionReadinessCheck(this.projection));
    this.readiness.register(processManagerReadinessCheck(this.expiry));
    await this.projection.start();
    await this.expiry.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.expiry.stop();
    await this.checkpoints.close();
    await this.projection.stop();
  }
}

/** Also the delegation-tree read model (DESIGN 2.1 `/missions/tree`), registered for readiness. */
@Module({
  controllers: [MissionsController, IntrospectionController, MissionAuditController],
  providers: [MissionStatusProjection, MissionBackgroundWork, MissionTreeReadModel],
  exports: [MissionStatusProjection],
})
export class MissionsModule {}
