import { Module } from '@nestjs/common';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS, type Logger, type ServiceSettings } from '@mission/platform';
import { AbuseModule } from '../abuse/abuse.module.js';
import type { PersonServerConfig } from '../config/person-server-config.js';
import { CLOCK, type Clock } from '../time/clock.js';
import { ClockModule } from '../time/clock.module.js';
import { AgentProviderKeys } from './agent-provider-keys.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { ResourceDirectory } from './resource-directory.js';
import { ResourceRequestAuthenticator } from './resource-request-authenticator.js';
import { RevokerGuard } from './revoker.guard.js';
import { SignatureReplayCache } from './signature-replay-cache.js';
import { SignedRequestGuard } from './signed-request.guard.js';
import { StoredSignatureClaims } from './stored-signature-claims.js';
import { SignatureClaimSweeping } from './signature-claim-sweeping.js';

/**
 * Request authentication for every Person Server endpoint (spec 5, DESIGN 3.2): the agent providers' and
 * the resources' keys, the signature replay check (a per-replica cache in front of claims in the event
 * store, shared by all replicas), the {@link RequestAuthenticator} with its {@link SignedRequestGuard}, and
 * the revocation endpoint's {@link RevokerGuard} that also accepts resources (ADR 0016). The guards apply
 * the rate limits and write the security audit of the AbuseModule. Expired signature claims are swept (ADR 0057).
 */
@Module({
  imports: [ClockModule, AbuseModule],
  providers: [
    {
      provide: AgentProviderKeys,
      inject: [SERVICE_CONFIG, LOGGER],
      useFactory: (config: PersonServerConfig, logger: Logger) =>
        new AgentProviderKeys(config.agent_providers, {
          onStaleKeys: (issuer, error) => logger.warn({ issuer, err: error }, 'agent provider keys could not be refreshed; using the keys fetched earlier'),
        }),
    },
    {
      provide: ResourceDirectory,
      inject: [SERVICE_CONFIG, LOGGER],
      useFactory: (config: PersonServerConfig, logger: Logger) =>
        new ResourceDirectory(config.resources, {
          onStaleKeys: (issuer, error) => logger.warn({ issuer, err: error }, 'resource keys could not be refreshed; using the keys fetched earlier'),
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
    {
      provide: ResourceRequestAuthenticator,
      inject: [SERVICE_SETTINGS, ResourceDirectory, SignatureReplayCache, StoredSignatureClaims, CLOCK],
      useFactory: (settings: ServiceSettings, resources: ResourceDirectory, replayCache: SignatureReplayCache, signatureClaims: StoredSignatureClaims, clock: Clock) =>
        new ResourceRequestAuthenticator({ baseUrl: settings.baseUrl, resources, replayCache, signatureClaims, clock }),
    },
    SignedRequestGuard,
    RevokerGuard,
    SignatureClaimSweeping,
  ],
  exports: [AgentProviderKeys, ResourceDirectory, SignatureReplayCache, StoredSignatureClaims, RequestAuthenticator, ResourceRequestAuthenticator, SignedRequestGuard, RevokerGuard],
})
export class AuthenticationModule {}
