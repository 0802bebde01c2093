import { Inject, Injectable, Module, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { ProcessManagerRunner } from '@mission/es-kit';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, ReadinessRegistry, ServiceMetrics, type Logger } from '@mission/platform';
import { StoreModule } from '../store/store.module.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { ClockModule } from '../time/clock.module.js';
import { blobDeletionManager } from './blob-deletion.process-manager.js';
import { missionExpiryManager } from './mission-expiry.process-manager.js';
import { MissionLog } from '../store/mission-log.js';
import { TokenLedger } from '../store/token-ledger.js';

/** How often the lifecycle runners look for due work (ms): an expiry is recorded at most about this late. */
export const DEFAULT_LIFECYCLE_POLL_MS = 250;
/** Optional injection token overriding {@link DEFAULT_LIFECYCLE_POLL_MS}. */
export const LIFECYCLE_POLL_MS = Symbol('LifecyclePollMs');

/**
 * Starts the mission lifecycle process managers with the app and stops them with it; each reports to
 * readiness (a dead subscription loop takes the replica out of rotation), as the issuer's do.
 */
@Injectable()
export class LifecycleBackgroundWork implements OnModuleInit, OnApplicationShutdown {
  readonly runners: readonly ProcessManagerRunner[];

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: Logger,
    private readonly readiness: ReadinessRegistry,
    ledger: TokenLedger,
    missionLog: MissionLog,
    private readonly metrics: ServiceMetrics,
    @Optional() @Inject(LIFECYCLE_POLL_MS) pollMs?: number,
  ) {
    const log = logger.child({ component: 'lifecycle' });
    const now = (): Date => clock.now();
    const options = { clock: now, logger: log, pollMs: pollMs ?? DEFAULT_LIFECYCLE_POLL_MS };
    this.runners = [new ProcessManagerRunner(store, missionExpiryManager(store, now, ledger, missionLog), options), new ProcessManagerRunner(store, blobDeletionManager(store), options)];
  }

  async onModuleInit(): Promise<void> {
    for (const runner of this.runners) this.readiness.register(processManagerReadinessCheck(runner));
    for (const runner of this.runners) this.metrics.watchProcessManager(runner);
    for (const runner of this.runners) await runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
  }
}

/**
 * The mission lifecycle outside requests (spec 3, 6, 8): the expiry scheduler (`ps_mission_expiry`)
 * and the completion of body deletions that keep `psmission-<s256>` as the tombstone (`ps_blob_deletion`;
 * the request itself is the DeleteMissionBody use case). See README.md in this folder.
 */
@Module({
  imports: [ClockModule, StoreModule],
  providers: [LifecycleBackgroundWork],
})
export class LifecycleModule {}
