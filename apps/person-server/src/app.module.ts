import { Module } from '@nestjs/common';
import { AbuseModule } from './abuse/abuse.module.js';
import { AuthenticationModule } from './auth/authentication.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { PersonServerMetadataController } from './metadata/metadata.controller.js';
import { MissionsModule } from './missions/missions.module.js';
import { RevocationModule } from './revocation/revocation.module.js';
import { StoreModule } from './store/store.module.js';
import { TokensModule } from './tokens/tokens.module.js';

/**
 * The Person Server's own features. The platform (settings, validated config as SERVICE_CONFIG,
 * logger, event store, signing keys, health, metrics, /jwks) is global and needs no import here.
 */
@Module({ imports: [AuthenticationModule, AbuseModule, StoreModule, TokensModule, RevocationModule, MissionsModule, LifecycleModule], controllers: [PersonServerMetadataController] })
export class AppModule {}
