import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream, Logger } from 'pino';
import { loadConfigFile } from '../config/config-file.js';
import { readServiceSettings, type ServiceSettings } from '../config/service-settings.js';
import { EventStoreModule } from '../event-store/event-store.module.js';
import { ReadinessRegistry } from '../health/readiness.js';
import { installBodyParsers } from '../http/body-parsers.js';
import { answerOnlyWhenDurable } from '../http/durable-answers.js';
import type { EventStore } from '@mission/event-store';
import { EVENT_STORE } from '../tokens.js';
import { ErrorResponseFilter } from '../http/error-response.filter.js';
import { observeRequests } from '../http/request-observer.js';
import { limitedFastifyAdapter } from '../http/http-server-limits.js';
import { loadSigningKeys } from '../keys/load-signing-keys.js';
import { startManagementServer, type ManagementServer } from '../management/management-server.js';
import { createLogger } from '../logging/create-logger.js';
import { traceRequests } from '../tracing/trace-requests.js';
import { NestPinoLogger } from '../logging/nest-logger.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';
import { buildOpenApiDocument, serveOpenApi } from '../openapi/openapi.js';
import { PlatformModule } from '../platform.module.js';
import { drainHttpServer } from './drain-http-server.js';
import type { ServiceDefinition } from './service-definition.js';

/** The `info.version` of the services' OpenAPI documents: the version of this code base. */
const SERVICE_API_VERSION = '0.1.0';

export interface BootstrapOptions {
  /** Defaults to `process.env`; tests pass their own. */
  readonly env?: NodeJS.ProcessEnv;
  /** Base for relative DATA_DIR / CONFIG_FILE paths; defaults to the working directory. */
  readonly cwd?: string;
  /** Where JSON log lines go; defaults to standard output. */
  readonly logDestination?: DestinationStream;
}

export interface RunningService {
  readonly app: NestFastifyApplication;
  readonly settings: ServiceSettings;
  readonly logger: Logger;
  /** The port actually bound (differs from PORT when PORT is 0). */
  readonly port: number;
  /** A URL that reaches this process directly, e.g. `http://127.0.0.1:54321` (BASE_URL may point at a proxy). */
  readonly listenUrl: string;
  /** With MANAGEMENT_PORT set: a URL of the management server (/metrics, /healthz, /readyz), e.g. `http://127.0.0.1:9464`. */
  readonly managementUrl?: string;
  /** Graceful stop: refuse new connections, let requests in flight finish (bounded), close the store. Idempotent. */
  stop(reason: string): Promise<void>;
}

/**
 * Builds and starts a service without touching the process (no exit, no signal handlers): the e2e
 * tests run it in-process, and `startService` wraps it for `main.ts`. Configuration is validated
 * before Nest starts, so a bad value fails fast with a ConfigError.
 */
export async function bootstrapService<Config>(definition: ServiceDefinition<Config>, options: BootstrapOptions = {}): Promise<RunningService> {
  const { settings, warnings } = readServiceSettings(definition.name, definition.defaults, options.env ?? process.env, options.cwd);
  const logger = createLogger({
    serviceName: definition.name,
    level: settings.logLevel,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  for (const warning of warnings) logger.warn(warning);
  const { value: config, warnings: configWarnings } = loadConfigFile(settings, definition.configSchema);
  for (const warning of configWarnings) logger.warn({ config_file: settings.configFile }, warning);
  logger.info({ config_file: settings.configFilePath, data_dir: settings.dataDir }, `${definition.name} starting`);
  // Loaded before Nest starts, like the config: a bad SIGNING_KEY_FILE is a config error, not a failed provider.
  const signingKeys = await loadSigningKeys(settings, logger);

  const metrics = new ServiceMetrics(definition.name);
  const appendObserver = definition.domainMetrics?.(metrics.registry);
  const errors = new ErrorResponseFilter(logger, definition.errorFormat, settings.requestBodyLimitBytes);
  const app = await NestFactory.create<NestFastifyApplication>(
    {
      module: class ServiceRootModule {},
      imports: [PlatformModule.forService({ settings, config, logger, metrics, signingKeys, ...(appendObserver ? { appendObserver } : {}) }), EventStoreModule, definition.module],
    },
    limitedFastifyAdapter(settings.http, settings.requestBodyLimitBytes, errors),
    {
      logger: new NestPinoLogger(logger),
      // Parsers are installed below: they keep the raw bytes on req.rawBody for content digests and strict JSON parsing.
      bodyParser: false,
      // Nest would otherwise abort() the process on a start-up error; callers decide what to do instead.
      abortOnError: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  observeRequests(fastify, logger, metrics);
  traceRequests(fastify);
  installBodyParsers(app, settings.requestBodyLimitBytes, definition.requestContentCodings);
  answerOnlyWhenDurable(fastify, app.get<symbol, EventStore>(EVENT_STORE));
  app.useGlobalFilters(errors);
  if (definition.openApi) serveOpenApi(app, buildOpenApiDocument(app, definition.openApi, settings.baseUrl, SERVICE_API_VERSION));

  try {
    await listenOnAllInterfaces(app, settings.port);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const server = app.getHttpServer() as Server;
  const port = (server.address() as AddressInfo).port;
  let management: ManagementServer | undefined;
  if (settings.managementPort !== undefined) {
    try {
      management = await startManagementServer(settings.managementPort, app.get(ReadinessRegistry), metrics, logger.child({ component: 'management' }));
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
    logger.info({ management_port: management.port }, `management endpoints (/metrics, /healthz, /readyz) on port ${management.port}`);
  }
  logger.info({ port, base_url: settings.baseUrl }, `listening on ${settings.baseUrl}`);

  let stopping: Promise<void> | undefined;
  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason, timeout_ms: settings.shutdownTimeoutMs }, 'shutting down: refusing new connections, finishing requests in flight');
      app.get(ReadinessRegistry).markShuttingDown();
      const { forced } = await drainHttpServer(server, settings.shutdownTimeoutMs);
      if (forced) logger.warn({ timeout_ms: settings.shutdownTimeoutMs }, 'requests still in flight at the shutdown deadline were cut off');
      // The management server stays up through the drain, so /readyz keeps answering 503 until the public port is closed.
      if (management) await drainHttpServer(management.server, settings.shutdownTimeoutMs);
      await app.close();
      logger.info('stopped');
    })();
    return stopping;
  };

  return {
    app, settings, logger, port, listenUrl: `http://127.0.0.1:${port}`,
    ...(management ? { managementUrl: `http://127.0.0.1:${management.port}` } : {}),
    stop,
  };
}

/** Like Node's `server.listen(port)` (Fastify alone would bind to localhost only): every interface, IPv6 where the host has it. */
async function listenOnAllInterfaces(app: NestFastifyApplication, port: number): Promise<void> {
  try {
    await app.listen(port, '::');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL') throw error;
    await app.listen(port, '0.0.0.0');
  }
}
