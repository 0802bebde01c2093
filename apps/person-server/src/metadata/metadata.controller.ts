import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { MISSION_MANAGEMENT_OPERATIONS, personServerMetadata } from './person-server-metadata.js';

@ApiTags('metadata')
@Controller()
export class PersonServerMetadataController {
  private readonly metadata: Record<string, unknown>;

  constructor(@Inject(SERVICE_SETTINGS) settings: ServiceSettings) {
    this.metadata = personServerMetadata({ issuer: settings.baseUrl, operations: MISSION_MANAGEMENT_OPERATIONS });
  }

  // Spec mission-management 2.2, DESIGN 3.1: the PS metadata document at its well-known path (and the AAuth alias).
  @Get(['.well-known/agent-person.json', '.well-known/aauth-person.json'])
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: 'PS metadata (spec 2.2), also at the AAuth alias `aauth-person.json`' })
  @ApiOkResponse({
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['issuer', 'mission_endpoint', 'mission_management_operations_supported'],
          properties: { issuer: { type: 'string', format: 'uri' }, mission_endpoint: { type: 'string', format: 'uri' }, mission_management_operations_supported: { type: 'array', items: { type: 'string' } } },
          additionalProperties: true,
        },
      },
    },
  })
  get(): Record<string, unknown> {
    return this.metadata;
  }
}
