import { Global, Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS, type Logger, type ServiceSettings } from '@mission/platform';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, clockProvider, type Clock } from '../time/clock.js';
import { AgentProviderKeys } from './agent-provider-keys.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { SignatureReplayCache } from './signature-replay-cache.js';
import { StoredSignatureClaims } from './stored-signature-claims.js';

/**
 * Request authentication for every Person Server endpoint (spec 5, DESIGN 3.2): the clock, the agent
 * providers' keys, the signature replay check (a per-replica cache in front of claims in the event store,
 * shared by all replicas) and the {@link RequestAuthenticator}.
 */
@Global()
@Module({
  providers: [
    clockProvider,
    {
      provide: AgentProviderKeys,
      inject: [SERVICE_CONFIG, LOGGER],
      useFactory: (config: PersonServerConfig, logger: Logger) =>
        new AgentProviderKeys(config.agent_providers, {
          onStaleKeys: (issuer, error) => logger.warn({ issuer, err: error }, 'agent provider keys could not be refreshed; using the keys fetched earlier'),
        }),
    },
    { provide: SignatureReplayCache, useFactory: () => new SignatureReplayCache() },
    { provide: StoredSignatureClaims, inject: [EVENT_STORE], useFactory: (store: EventStore) => new StoredSignatureClaims(store) },
    {
      provide: RequestAuthenticator,
      inject: [SERVICE_CONFIG, SERVICE_SETTINGS, AgentProviderKeys, SignatureReplayCache, StoredSignatureClaims, CLOCK],
      useFactory: (
        config: PersonServerConfig,
        settings: ServiceSettings,
        agentProviders: AgentProviderKeys,
        replayCache: SignatureReplayCache,
        signatureClaims: StoredSignatureClaims,
        clock: Clock,
      ) => new RequestAuthenticator({ baseUrl: settings.baseUrl, principals: config.principals, agentProviders, replayCache, signatureClaims, clock }),
    },
  ],
  exports: [CLOCK, AgentProviderKeys, SignatureReplayCache, StoredSignatureClaims, RequestAuthenticator],
})
export class AuthenticationModule {}
