import { Controller, Get, Header, Inject } from '@nestjs/common';
import { SERVICE_CONFIG, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import type { IssuerConfig } from '../config/issuer-config.js';
import { authorizationServerMetadata } from './authorization-server-metadata.js';

@Controller()
export class MetadataController {
  private readonly metadata: Record<string, unknown>;

  constructor(@Inject(SERVICE_SETTINGS) settings: ServiceSettings, @Inject(SERVICE_CONFIG) config: IssuerConfig) {
    this.metadata = authorizationServerMetadata({
      issuer: settings.baseUrl,
      missionMaxStaleSeconds: config.mission_max_stale_seconds,
      childDelegationSupported: true,
    });
  }

  // RFC 8414 §3: served at the well-known path derived from the issuer identifier.
  @Get('.well-known/oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=300')
  get(): Record<string, unknown> {
    return this.metadata;
  }
}
