import { Module } from '@nestjs/common';

/**
 * The issuer's own features. The platform (settings, validated config as SERVICE_CONFIG, logger, event
 * store, signing keys, health, metrics, /jwks) is global and needs no import here.
 */
@Module({})
export class AppModule {}
