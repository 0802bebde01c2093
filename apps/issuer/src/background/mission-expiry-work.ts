import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { ProcessManagerRunner } from '@mission/es-kit';
import type { Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, ReadinessRegistry, ServiceMetrics } from '@mission/platform';
import type { Logger } from 'pino';
import { CLOCK } from '../oauth/clock.js';
import { MissionLineage } from '../lineage/mission-lineage.js';
import { CoalescedCheckpoints, withCheckpoints } from './coalesced-checkpoints.js';
import { missionExpiryManager } from './mission-expiry.process-manager.js';

/** Starts the mission expiry process manager with the app and stops it with it. */
@Injectable()
export class MissionExpiryWork implements OnModuleInit, OnApplicationShutdown {
  private readonly expiry: ProcessManagerRunner;
  private readonly checkpoints: CoalescedCheckpoints;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: Logger,
    private readonly readiness: ReadinessRegistry,
    lineage: MissionLineage,
    private readonly metrics: ServiceMetrics,
  ) {
    const log = logger.child({ component: 'missions' });
    // Its trigger checkpoint coalesced like the children runners' (one commit per event otherwise: a
    // cascade of 10,000 descendants cost this runner 10,000 commits).
    this.checkpoints = new CoalescedCheckpoints(store.checkpoints, 250, (err) => log.warn({ err }, 'could not save a process manager checkpoint; retrying'));
    this.expiry = new ProcessManagerRunner(withCheckpoints(store, this.checkpoints), missionExpiryManager(store, () => clock.now(), lineage), { clock: () => clock.now(), logger: log });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(processManagerReadinessCheck(this.expiry));
    this.metrics.watchProcessManager(this.expiry);
    await this.expiry.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.expiry.stop();
    await this.checkpoints.close();
  }
}
