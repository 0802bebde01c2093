import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServiceSettings } from './config/service-settings.js';
import { HealthController } from './health/health.controller.js';
import { ReadinessRegistry } from './health/readiness.js';
import { JwksController } from './keys/jwks.controller.js';
import { SigningKeys } from './keys/signing-keys.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import type { AppendObserver } from './metrics/metered-event-store.js';
import { APPEND_OBSERVER, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS } from './tokens.js';

export interface PlatformModuleOptions {
  readonly settings: ServiceSettings;
  /** The validated CONFIG_FILE content. */
  readonly config: unknown;
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly signingKeys: SigningKeys;
  /** Counts the service's domain metrics from committed appends; none by default. */
  readonly appendObserver?: AppendObserver;
}

/**
 * What every service gets: settings, config, logger, metrics, readiness registry, signing keys, and the
 * /healthz, /readyz, /metrics (unless MANAGEMENT_PORT moves them) and /jwks endpoints. Global, so app modules inject these without imports.
 */
@Global()
@Module({})
export class PlatformModule {
  static forService(options: PlatformModuleOptions): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      // With MANAGEMENT_PORT set the operator paths live only on the management server (ADR 0045), so the
      // public port has no route for them and answers 404.
      controllers: options.settings.managementPort === undefined ? [HealthController, MetricsController, JwksController] : [JwksController],
      providers: [
        { provide: SERVICE_SETTINGS, useValue: options.settings },
        { provide: SERVICE_CONFIG, useValue: options.config },
        { provide: LOGGER, useValue: options.logger },
        { provide: ServiceMetrics, useValue: options.metrics },
        ReadinessRegistry,
        { provide: SigningKeys, useValue: options.signingKeys },
        { provide: APPEND_OBSERVER, useValue: options.appendObserver ?? (() => undefined) },
      ],
      exports: [SERVICE_SETTINGS, SERVICE_CONFIG, LOGGER, ServiceMetrics, ReadinessRegistry, SigningKeys, APPEND_OBSERVER],
    };
  }
}
