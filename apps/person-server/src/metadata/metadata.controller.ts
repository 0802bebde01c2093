import { Controller, Get, Header, Inject } from '@nestjs/common';
import { SERVICE_SETTINGS, type ServiceSettings } from '@mission/platform';
import { MISSION_MANAGEMENT_OPERATIONS, personServerMetadata } from './person-server-metadata.js';

@Controller()
export class PersonServerMetadataController {
  private readonly metadata: Record<string, unknown>;

  constructor(@Inject(SERVICE_SETTINGS) settings: ServiceSettings) {
    this.metadata = personServerMetadata({ issuer: settings.baseUrl, operations: MISSION_MANAGEMENT_OPERATIONS });
  }

  // Spec mission-management 2.2, DESIGN 3.1: the PS metadata document at its well-known path (and the AAuth alias).
  @Get(['.well-known/agent-person.json', '.well-known/aauth-person.json'])
  @Header('Cache-Control', 'public, max-age=300')
  get(): Record<string, unknown> {
    return this.metadata;
  }
}
