import { Module } from '@nestjs/common';
import { AuthorizationModule } from './authorization/authorization.module.js';
import { ChildrenModule } from './children/children.module.js';
import { MetadataController } from './metadata/metadata.controller.js';
import { MissionsModule } from './missions/missions.module.js';
import { IssuerOAuthModule } from './oauth/oauth.module.js';

/**
 * The issuer's own features. The platform (settings, validated config as SERVICE_CONFIG, logger, event
 * store, signing keys, health, metrics, /jwks) is global and needs no import here.
 */
@Module({
  imports: [IssuerOAuthModule, MissionsModule, AuthorizationModule, ChildrenModule],
  controllers: [MetadataController],
})
export class AppModule {}
