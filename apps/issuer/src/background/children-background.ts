import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { ProcessManagerRunner } from '@mission/es-kit';
import type { Clock } from '@mission/issuer-oauth';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, ReadinessRegistry, ServiceMetrics } from '@mission/platform';
import type { Logger } from 'pino';
import { MissionLineage } from '../lineage/mission-lineage.js';
import { CLOCK } from '../oauth/clock.js';
import { missionCascadeManager } from './cascade.process-manager.js';
import { childGrantLapseManager } from './child-grant-lapse.process-manager.js';
import { childSlotReleaseManager } from './child-slot-release.process-manager.js';
import { CoalescedCheckpoints, withCheckpoints } from './coalesced-checkpoints.js';

/** How often the cascade runner looks for due work: each generation of a cascade waits for one look. */
const CASCADE_POLL_MS = 50;
/** Work items the cascade runner performs at once (each cascades up to 64 children at once). */
const CASCADE_CONCURRENCY = 16;
/** How far the runners' trigger checkpoints may lag (see CoalescedCheckpoints). */
const CHECKPOINT_INTERVAL_MS = 250;

/**
 * Child Missions' background work (spec child-mission-delegation 2.4, 3.2; DESIGN 2.4): the immediate
 * cascade, the release of `max_children` slots by terminal children, and the lapse of unredeemed
 * creation grants. Starts the three process managers with the app and stops them with it.
 */
@Injectable()
export class ChildrenBackgroundWork implements OnModuleInit, OnApplicationShutdown {
  private readonly runners: readonly ProcessManagerRunner[];
  private readonly checkpoints: CoalescedCheckpoints;
  /** Test hook for the creation/cascade interleaving tests: awaited before a parent's children are cascaded. Never set in production. */
  beforeCascade: ((parentMissionId: string) => Promise<void>) | undefined;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: Logger,
    private readonly readiness: ReadinessRegistry,
    lineage: MissionLineage,
    private readonly metrics?: ServiceMetrics,
  ) {
    const log = logger.child({ component: 'children' });
    const now = (): Date => clock.now();
    this.checkpoints = new CoalescedCheckpoints(store.checkpoints, CHECKPOINT_INTERVAL_MS, (err) => log.warn({ err }, 'could not save a process manager checkpoint; retrying'));
    const runnerStore = withCheckpoints(store, this.checkpoints);
    this.runners = [
      new ProcessManagerRunner(runnerStore, missionCascadeManager(store, now, { logger: log, beforeCascade: async (parentId) => this.beforeCascade?.(parentId) }), {
        clock: now, logger: log, pollMs: CASCADE_POLL_MS, concurrency: CASCADE_CONCURRENCY,
      }),
      new ProcessManagerRunner(runnerStore, childSlotReleaseManager(lineage, now), { clock: now, logger: log }),
      new ProcessManagerRunner(runnerStore, childGrantLapseManager(store, now, { logger: log }), { clock: now, logger: log }),
    ];
  }

  async onModuleInit(): Promise<void> {
    for (const runner of this.runners) this.readiness.register(processManagerReadinessCheck(runner));
    const [cascade, ...others] = this.runners;
    this.metrics?.watchProcessManager(cascade!, { name: 'issuer_cascade_backlog', help: 'Open work items of the immediate cascade (parents whose children are still to be cascaded)' });
    for (const runner of others) this.metrics?.watchProcessManager(runner);
    for (const runner of this.runners) await runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
    await this.checkpoints.close();
  }
}
