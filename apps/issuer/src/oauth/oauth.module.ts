import { Module } from '@nestjs/common';
import type { Clock } from '@mission/issuer-oauth';
import { ClientRegistry } from '../clients/client-registry.js';
import { clockProvider, CLOCK } from './clock.js';
import { DPOP_NONCES, dpopNoncesFromEnvironment } from './dpop-nonce-config.js';
import { IssuerOAuth } from './issuer-oauth.service.js';

/** Client registry, clock and the OAuth checks (client authentication, DPoP) every issuer endpoint uses; imported explicitly. */
@Module({
  providers: [
    clockProvider,
    { provide: DPOP_NONCES, inject: [CLOCK], useFactory: (clock: Clock) => dpopNoncesFromEnvironment(process.env, clock) },
    ClientRegistry,
    IssuerOAuth,
  ],
  exports: [CLOCK, DPOP_NONCES, ClientRegistry, IssuerOAuth],
})
export class IssuerOAuthModule {}
