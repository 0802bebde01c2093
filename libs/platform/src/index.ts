export { bootstrapService, type BootstrapOptions, type RunningService } from './bootstrap/bootstrap-service.js';
export { describeStartupFailure } from './bootstrap/describe-startup-failure.js';
export type { ServiceDefinition } from './bootstrap/service-definition.js';
export { startService } from './bootstrap/start-service.js';
export { ConfigError, describeValue } from './config/config-error.js';
export { loadConfigFile } from './config/config-file.js';
export { publicJwk, publicJwks, type JwksRules, type PublicJwk, type PublicJwks } from './config/jwk-schema.js';
export * from './config/schema.js';
export {
  DEFAULT_REQUEST_BODY_LIMIT_BYTES,
  DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
  LOG_LEVELS,
  readServiceSettings,
  type LogLevel,
  type ReadSettingsResult,
  type ServiceDefaults,
  type ServiceSettings,
} from './config/service-settings.js';
export { EventStoreLifecycle, EventStoreModule } from './event-store/event-store.module.js';
export { ReadinessRegistry, type ReadinessCheck, type ReadinessReport, type ReadinessResult } from './health/readiness.js';
export { projectionReadinessCheck } from './health/projection-readiness.js';
export { StoredModelRunner } from './read-models/stored-model-runner.js';
export { PROCESS_MANAGER_BACKLOG_BOUND, processManagerReadinessCheck } from './health/process-manager-readiness.js';
export { ErrorResponseFilter, type ErrorFormat } from './http/error-response.filter.js';
export { InvalidRequestError, NotFoundError, ProtocolError, type ProtocolErrorMember, type ProtocolErrorOptions } from '@mission/protocol-errors';
export { pathOf, REQUEST_ID_HEADER } from './http/request-observer.js';
export type { RawBodyRequest } from './http/body-parsers.js';
export { DEV_KEY_FILE_NAME, loadSigningKeys, type SigningKeySettings } from './keys/load-signing-keys.js';
export { SigningKeys, type PublicSigningJwk } from './keys/signing-keys.js';
export { createLogger, traceLogFields, type CreateLoggerOptions, type Logger } from './logging/create-logger.js';
export { NestPinoLogger } from './logging/nest-logger.js';
export { MeteredEventStore, type AppendObserver } from './metrics/metered-event-store.js';
export { PROJECTION_LAG_LIMIT, ServiceMetrics, type AppendOutcome, type WatchedProcessManager, type WatchedProjection } from './metrics/service-metrics.js';
export { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH, serveOpenApi, type OpenApiDefinition, type SecuritySchemeObject } from './openapi/openapi.js';
export { startTracing, type StartTracingOptions, type Tracing } from './tracing/start-tracing.js';
export { withOutgoingTrace } from './tracing/outgoing-trace.js';
export { requestTraceOf } from './tracing/trace-requests.js';
export { PlatformModule, type PlatformModuleOptions } from './platform.module.js';
export { APPEND_OBSERVER, EVENT_STORE, LOGGER, SERVICE_CONFIG, SERVICE_SETTINGS } from './tokens.js';
export { sendStaticFile, STATIC_PAGE_CSP, type StaticAsset } from './http/static-page.js';
export { secureRandomBytes } from './random/secure-random-bytes.js';
