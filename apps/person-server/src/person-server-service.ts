import type { ServiceDefinition } from '@mission/platform';
import { AppModule } from './app.module.js';
import { personServerConfigSchema, type PersonServerConfig } from './config/person-server-config.js';
import { personServerOpenApi } from './endpoints/openapi/person-server-openapi.js';
import { personServerDomainMetrics } from './metrics/person-server-metrics.js';

/** The Person Server as `startService` runs it; the e2e tests start the same definition in-process. */
export const personServerService: ServiceDefinition<PersonServerConfig> = {
  name: 'person-server',
  module: AppModule,
  defaults: { port: 4001, dataDir: './data/person-server', configFile: 'config/person-server.json' },
  configSchema: personServerConfigSchema,
  // Spec mission-management 7: every error is application/problem+json, also those the platform raises (a body that is not JSON, no route).
  errorFormat: 'problem',
  // DESIGN 3.2, RFC 9530 (ADR 0014): Content-Digest is verified over the bytes received, so coded bodies are refused (415), never inflated.
  requestContentCodings: 'refuse',
  // Issue 18 / ADR 0046: counted from committed appends, never in controllers or deciders.
  domainMetrics: personServerDomainMetrics,
  openApi: personServerOpenApi,
};
