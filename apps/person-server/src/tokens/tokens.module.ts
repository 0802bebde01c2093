import { Global, Module } from '@nestjs/common';
import { LOGGER, SERVICE_CONFIG, type Logger } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { ResourceDirectory } from '../auth/resource-directory.js';
import { TokenController } from './token.controller.js';
import { TokenEndpoint } from './token-endpoint.service.js';

/**
 * Auth Tokens (DESIGN 3.1, spec 2.6): `POST /token`, the resources' keys and revocation endpoints, and
 * the per-mission ledger of Tracked Auth Tokens (`pstokens-<s256>`) that revocation and the
 * delegation tree read.
 */
@Global()
@Module({
  controllers: [TokenController],
  providers: [
    {
      provide: ResourceDirectory,
      inject: [SERVICE_CONFIG, LOGGER],
      useFactory: (config: PersonServerConfig, logger: Logger) =>
        new ResourceDirectory(config.resources, {
          onStaleKeys: (issuer, error) => logger.warn({ issuer, err: error }, 'resource keys could not be refreshed; using the keys fetched earlier'),
        }),
    },
    TokenEndpoint,
  ],
  exports: [ResourceDirectory],
})
export class TokensModule {}
