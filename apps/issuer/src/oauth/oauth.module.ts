import { Global, Module } from '@nestjs/common';
import { ClientRegistry } from '../clients/client-registry.js';
import type { Clock } from '@mission/issuer-oauth';
import { clockProvider, CLOCK } from './clock.js';
import { DPOP_NONCES, dpopNoncesFromEnvironment } from './dpop-nonce-config.js';
import { DpopNonceInterceptor } from './dpop-nonce.interceptor.js';
import { IssuerOAuth } from './issuer-oauth.service.js';
import { MissionLineage } from '../missions/mission-lineage.js';

/** Client registry, clock, OAuth checks and the mission/lineage reader shared by every issuer endpoint. */
@Global()
@Module({
  providers: [
    clockProvider,
    { provide: DPOP_NONCES, inject: [CLOCK], useFactory: (clock: Clock) => dpopNoncesFromEnvironment(process.env, clock) },
    ClientRegistry,
    IssuerOAuth,
    DpopNonceInterceptor,
    MissionLineage,
  ],
  exports: [CLOCK, DPOP_NONCES, ClientRegistry, IssuerOAuth, DpopNonceInterceptor, MissionLineage],
})
export class IssuerOAuthModule {}
