import { Module } from '@nestjs/common';
import { SERVICE_CONFIG, SERVICE_SETTINGS, SigningKeys, type ServiceSettings } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { StoreModule } from '../store/store.module.js';
import { TokenLedger } from '../store/token-ledger.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { ClockModule } from '../time/clock.module.js';
import { ResourceRateLimiter } from './resource-rate-limiter.js';
import { RevocationClient } from './revocation-client.js';
import { RevocationWork } from './revocation-work.js';
import { TokenRevocations } from './token-revocations.js';

/**
 * Durable revocation after termination (spec 4.4, DESIGN 3.3): the PS's signed calls to resources'
 * revocation endpoints, rate limited per resource, and the `ps_token_revocation` process manager that
 * runs them ({@link RevocationWork}). The PS's own revocation endpoint is the RevokeAuthToken use case.
 */
@Module({
  imports: [ClockModule, StoreModule],
  providers: [
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
