import { Global, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { es256SealSigner, SealWriter } from '@mission/es-kit';
import { openEventStore, type EventStore } from '@mission/event-store';
import type { Logger } from 'pino';
import type { ServiceSettings } from '../config/service-settings.js';
import { ReadinessRegistry } from '../health/readiness.js';
import { SigningKeys } from '../keys/signing-keys.js';
import { MeteredEventStore, type AppendObserver } from '../metrics/metered-event-store.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';
import { APPEND_OBSERVER, EVENT_STORE, LOGGER, SERVICE_SETTINGS } from '../tokens.js';

/**
 * Registers the store's readiness check, seals what the service writes (signed with its /jwks key, ADR
 * 0028), and closes the store last, after the HTTP server has drained and the last events were sealed.
 */
@Injectable()
export class EventStoreLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly seals: SealWriter;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly readiness: ReadinessRegistry,
    @Inject(SERVICE_SETTINGS) settings: ServiceSettings,
    signingKeys: SigningKeys,
  ) {
    this.seals = new SealWriter({
      store,
      service: settings.serviceName,
      signer: es256SealSigner(signingKeys.privateKey, signingKeys.kid),
      everyEvents: settings.sealEveryEvents,
      everyMs: settings.sealIntervalMs,
      logger: logger.child({ component: 'audit-seals' }),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.seals.start();
  }

  onModuleInit(): void {
    this.readiness.register({
      name: 'event-store',
      check: async () => {
        try {
          await this.store.ping();
          return { ok: true };
        } catch (error) {
          this.logger.warn({ err: error }, 'readiness: event store does not answer');
          return { ok: false, detail: `${this.store.kind} event store does not answer` };
        }
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.seals.stop();
    await this.store.close();
    this.logger.info({ event_store: this.store.kind }, 'event store closed');
  }
}

/**
 * Opens the service's event store (embedded SQLite under DATA_DIR, or EventStoreDB when
 * EVENTSTORE_CONNECTION_STRING is set) and provides it as `EVENT_STORE`. A store that cannot be opened
 * fails application start-up with the store's own error, which `startService` reports and exits on.
 */
@Global()
@Module({
  providers: [
    {
      provide: EVENT_STORE,
      inject: [SERVICE_SETTINGS, LOGGER, ServiceMetrics, APPEND_OBSERVER],
      useFactory: async (settings: ServiceSettings, logger: Logger, metrics: ServiceMetrics, observer: AppendObserver): Promise<EventStore> => {
        const store = await openEventStore({
          ...(settings.eventStoreConnectionString !== undefined ? { connectionString: settings.eventStoreConnectionString } : {}),
          dataDir: settings.dataDir,
          logger: logger.child({ component: 'event-store' }),
        });
        // Every append is timed and, once committed, counted into the domain metrics (ADR 0046).
        return new MeteredEventStore(store, metrics, observer, (error) => logger.warn({ err: error }, 'domain metrics: an append could not be counted'));
      },
    },
    EventStoreLifecycle,
  ],
  exports: [EVENT_STORE],
})
export class EventStoreModule {}
