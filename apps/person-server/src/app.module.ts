import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { EndpointsModule } from './endpoints/endpoints.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { PersonServerMetadataController } from './metadata/metadata.controller.js';

/**
 * The Person Server's own features, every dependency imported explicitly (no global module of its own).
 * The platform (settings, validated config as SERVICE_CONFIG, logger, event store, signing keys, health,
 * metrics, /jwks) is the one global module, provided by `startService`. Layers: docs/architecture.md.
 */
@Module({
  imports: [CqrsModule.forRoot(), EndpointsModule, LifecycleModule],
  controllers: [PersonServerMetadataController],
})
export class AppModule {}
