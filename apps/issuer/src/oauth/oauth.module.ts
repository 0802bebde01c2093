import { Global, Module } from '@nestjs/common';
import { ClientRegistry } from '../clients/client-registry.js';
import { clockProvider, CLOCK } from './clock.js';
import { IssuerOAuth } from './issuer-oauth.service.js';

/** Client registry, clock and OAuth checks shared by every issuer endpoint. */
@Global()
@Module({
  providers: [clockProvider, ClientRegistry, IssuerOAuth],
  exports: [CLOCK, ClientRegistry, IssuerOAuth],
})
export class IssuerOAuthModule {}
