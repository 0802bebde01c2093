import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ProcessManagerRunner, type CommandContext } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, ReadinessRegistry, SERVICE_CONFIG, ServiceMetrics, type Logger } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { revocationWork, tokenRevocationManager } from './token-revocation.process-manager.js';
import { TokenRevocations } from './token-revocations.js';

/** The revocation runner looks for due work this often: a direct schedule from `terminate` starts within about this long. */
const REVOCATION_POLL_MS = 20;

/**
 * Durable revocation after termination (spec 4.4, DESIGN 3.3): the `ps_token_revocation` process
 * manager, started with the app, stopped with it, reported to readiness.
 */
@Injectable()
export class RevocationWork implements OnModuleInit, OnApplicationShutdown {
  private readonly runner: ProcessManagerRunner;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SERVICE_CONFIG) config: PersonServerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    readonly revocations: TokenRevocations,
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: ServiceMetrics,
  ) {
    this.runner = new ProcessManagerRunner(store, tokenRevocationManager(revocations, config.revocation), {
      clock: () => clock.now(),
      logger: logger.child({ component: 'revocation' }),
      pollMs: REVOCATION_POLL_MS,
      concurrency: 4,
    });
  }

  async onModuleInit(): Promise<void> {
    this.readiness.register(processManagerReadinessCheck(this.runner));
    this.metrics.watchProcessManager(this.runner, { name: 'ps_revocation_backlog', help: 'Open revocation work items: terminated missions whose tracked Auth Tokens are still being revoked at their resources' });
    await this.runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** Starts revocation now (spec 4.2 step 5) rather than when the trigger subscription gets to the event. */
  async start(missionS256: string, context: CommandContext): Promise<void> {
    try {
      await this.runner.schedule(revocationWork(missionS256, this.clock.now()), context);
    } catch (error) {
      // Never fails the committed termination (spec 4.2 step 3): the MissionTerminated trigger schedules the same work.
      this.logger.warn({ mission_s256: missionS256, err: error }, 'could not start revocation directly; the trigger will start it');
    }
  }
}
