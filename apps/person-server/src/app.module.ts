import { Module } from '@nestjs/common';
import { AuthenticationModule } from './auth/authentication.module.js';

/**
 * The Person Server's own features. The platform (settings, validated config as SERVICE_CONFIG,
 * logger, event store, signing keys, health, metrics, /jwks) is global and needs no import here.
 */
@Module({ imports: [AuthenticationModule] })
export class AppModule {}
