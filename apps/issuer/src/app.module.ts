import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BackgroundModule } from './background/background.module.js';
import { EndpointsModule } from './endpoints/endpoints.module.js';
import { MetadataController } from './metadata/metadata.controller.js';

/**
 * The issuer's own features, every dependency imported explicitly (no global module of its own). The
 * platform (settings, validated config as SERVICE_CONFIG, logger, event store, signing keys, health,
 * metrics, /jwks) is the one global module, provided by `startService`. Layers: docs/architecture.md.
 */
@Module({
  imports: [CqrsModule.forRoot(), EndpointsModule, BackgroundModule],
  controllers: [MetadataController],
})
export class AppModule {}
