import { Global, Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ProcessManagerRunner, type CommandContext } from '@mission/es-kit';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, processManagerReadinessCheck, ReadinessRegistry, SERVICE_CONFIG, SERVICE_SETTINGS, SigningKeys, type Logger, type ServiceSettings } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { SignatureReplayCache } from '../auth/signature-replay-cache.js';
import { StoredSignatureClaims } from '../auth/stored-signature-claims.js';
import { SignedRequestGuard } from '../auth/signed-request.guard.js';
import { ResourceDirectory } from '../auth/resource-directory.js';
import { TokenLedger } from '../store/token-ledger.js';
import { ResourceRequestAuthenticator } from '../auth/resource-request-authenticator.js';
import { RevocationRequestController } from './revocation-request.controller.js';
import { RevocationRequests } from './revocation-requests.service.js';
import { RevokerGuard } from '../auth/revoker.guard.js';
import { ResourceRateLimiter } from './resource-rate-limiter.js';
import { RevocationClient } from './revocation-client.js';
import { revocationWork, tokenRevocationManager } from './token-revocation.process-manager.js';
import { TokenRevocations } from './token-revocations.js';

/** The revocation runner looks for due work this often: a direct schedule from `terminate` starts within about this long. */
const REVOCATION_POLL_MS = 20;

/**
 * Durable revocation after termination (spec 4.4, DESIGN 3.3): the `ps_token_revocation` process
 * manager, started with the app, stopped with it, reported to readiness. The module also serves the PS's
 * own revocation endpoint (DESIGN 3.1, ADR 0016).
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

@Global()
@Module({
  controllers: [RevocationRequestController],
  providers: [
    SignedRequestGuard,
    RevokerGuard,
    RevocationRequests,
    {
      provide: ResourceRequestAuthenticator,
      inject: [SERVICE_SETTINGS, ResourceDirectory, SignatureReplayCache, StoredSignatureClaims, CLOCK],
      useFactory: (settings: ServiceSettings, resources: ResourceDirectory, replayCache: SignatureReplayCache, signatureClaims: StoredSignatureClaims, clock: Clock) =>
        new ResourceRequestAuthenticator({ baseUrl: settings.baseUrl, resources, replayCache, signatureClaims, clock }),
    },
    {
      provide: RevocationClient,
      inject: [SERVICE_CONFIG, SERVICE_SETTINGS, SigningKeys],
      useFactory: (config: PersonServerConfig, settings: ServiceSettings, keys: SigningKeys) =>
        new RevocationClient({ issuer: settings.baseUrl, keys, timeoutMs: config.revocation.timeout_ms }),
    },
    {
      provide: ResourceRateLimiter,
      inject: [SERVICE_CONFIG],
      useFactory: (config: PersonServerConfig) => new ResourceRateLimiter(config.revocation.per_resource_per_second),
    },
    {
      provide: TokenRevocations,
      inject: [TokenLedger, RevocationClient, ResourceRateLimiter, SERVICE_CONFIG, CLOCK],
      useFactory: (ledger: TokenLedger, client: RevocationClient, limiter: ResourceRateLimiter, config: PersonServerConfig, clock: Clock) =>
        new TokenRevocations(ledger, client, limiter, config.revocation, clock),
    },
    RevocationWork,
  ],
  exports: [TokenRevocations, RevocationWork],
})
export class RevocationModule {}
