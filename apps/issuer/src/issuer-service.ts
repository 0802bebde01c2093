import type { ServiceDefinition } from '@mission/platform';
import { AppModule } from './app.module.js';
import { issuerConfigSchema, type IssuerConfig } from './config/issuer-config.js';
import { issuerOpenApi } from './endpoints/openapi/issuer-openapi.js';
import { issuerDomainMetrics } from './metrics/issuer-metrics.js';

/** The issuer as `startService` runs it; the e2e tests start the same definition in-process. */
export const issuerService: ServiceDefinition<IssuerConfig> = {
  name: 'issuer',
  module: AppModule,
  defaults: { port: 4000, dataDir: './data/issuer', configFile: 'config/issuer.json' },
  configSchema: issuerConfigSchema,
  // Issue 18 / ADR 0046: counted from committed appends, never in controllers or deciders.
  domainMetrics: issuerDomainMetrics,
  openApi: issuerOpenApi,
};
