import type { DynamicModule, Type } from '@nestjs/common';
import type { Schema } from '../config/schema.js';
import type { ServiceDefaults } from '../config/service-settings.js';
import type { ContentCodingPolicy } from '../http/body-parsers.js';
import type { ErrorFormat } from '../http/error-response.filter.js';
import type { AppendObserver } from '../metrics/metered-event-store.js';
import type { Registry } from 'prom-client';
import type { OpenApiDefinition } from '../openapi/openapi.js';

/** What an app hands to `startService`: everything else (HTTP, logging, store, keys, health) is the platform's. */
export interface ServiceDefinition<Config> {
  /** Short name, used in logs and metrics (`issuer`, `person-server`). */
  readonly name: string;
  /** The app's root Nest module; platform providers are global, so it can inject them directly. */
  readonly module: Type<unknown> | DynamicModule;
  readonly defaults: ServiceDefaults;
  /** Validates CONFIG_FILE; the result is provided as `SERVICE_CONFIG`. */
  readonly configSchema: Schema<Config>;
  /** How platform-raised errors are spelled (default `oauth`); see {@link ErrorFormat}. */
  readonly errorFormat?: ErrorFormat;
  /**
   * Request bodies with a `Content-Encoding` other than `identity`: `inflate` (default) decodes gzip/deflate
   * before parsing; `refuse` answers 415 without decoding — for services that verify a digest over the bytes
   * received (RFC 9530), which must never be checked against inflated bytes.
   */
  readonly requestContentCodings?: ContentCodingPolicy;
  /**
   * The service's domain metrics (ADR 0046): registers its families on the service's registry and returns the
   * observer that counts them from every append the store committed.
   */
  readonly domainMetrics?: (registry: Registry) => AppendObserver;
  /** Served as /openapi.json and /docs, built from the controllers' decorators (ADR 0047); none without it. */
  readonly openApi?: OpenApiDefinition;
}
