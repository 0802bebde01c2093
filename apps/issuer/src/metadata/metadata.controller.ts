import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SERVICE_CONFIG, SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import type { IssuerConfig } from '../config/issuer-config.js';
import { authorizationServerMetadata } from './authorization-server-metadata.js';

@ApiTags('metadata')
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
  @ApiOperation({ summary: 'Authorization server metadata (RFC 8414)', description: 'Endpoints, `private_key_jwt` and DPoP algorithms, `mission_max_stale_seconds`, `mission_child_delegation_supported`.' })
  @ApiOkResponse({ content: { 'application/json': { schema: { type: 'object', required: ['issuer', 'token_endpoint'], properties: { issuer: { type: 'string', format: 'uri' }, token_endpoint: { type: 'string', format: 'uri' } }, additionalProperties: true } } } })
  get(): Record<string, unknown> {
    return this.metadata;
  }
}
