import { EVENT_STORE_CONNECTION_STRING } from '@mission/event-store';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, describeValue } from './config-error.js';
import type { HttpServerLimits } from '../http/http-server-limits.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Per-service defaults (DESIGN 5); every one can be overridden by its environment variable. */
export interface ServiceDefaults {
  readonly port: number;
  /** Relative paths are resolved against the working directory, like the environment variables. */
  readonly dataDir: string;
  readonly configFile: string;
  /** Defaults to `http://localhost:<PORT>`, so `PORT=5000` alone still gives a working identifier. */
  readonly baseUrl?: string;
  readonly requestBodyLimitBytes?: number;
  readonly shutdownTimeoutSeconds?: number;
}

/** Everything a service reads from its environment, validated. */
export interface ServiceSettings {
  readonly serviceName: string;
  /** 0 binds any free port (tests); BASE_URL must then be given explicitly. */
  readonly port: number;
  /**
   * MANAGEMENT_PORT: when set, /metrics, /healthz and /readyz are served only on this port (0 = any free
   * port, tests) and the public port answers 404 for them; unset, they stay on the public port (ADR 0045).
   */
  readonly managementPort?: number;
  /** The service's public identifier (the `issuer` value): no trailing slash, query or fragment. */
  readonly baseUrl: string;
  readonly dataDir: string;
  /** Unset selects the embedded SQLite store under DATA_DIR. */
  readonly eventStoreConnectionString?: string;
  /** As configured, for messages. */
  readonly configFile: string;
  readonly configFilePath: string;
  /** True when CONFIG_FILE was not set, so a missing file can be explained as a missing default. */
  readonly configFileIsDefault: boolean;
  /** A private JWK to sign with; unset generates development keys under DATA_DIR/keys. */
  readonly signingKeyFile?: string;
  readonly logLevel: LogLevel;
  readonly requestBodyLimitBytes: number;
  readonly shutdownTimeoutMs: number;
  /** Audit seals (ADR 0028): one at the latest after this many events … */
  readonly sealEveryEvents: number;
  /** … or this long after an unsealed event was written. */
  readonly sealIntervalMs: number;
  /** Slow-client limits of the HTTP server (ADR 0056). */
  readonly http: HttpServerLimits;
}

export interface ReadSettingsResult {
  readonly settings: ServiceSettings;
  /** Allowed but suspicious values, to log once the logger exists. */
  readonly warnings: readonly string[];
}

export const DEFAULT_REQUEST_BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 10;
export const DEFAULT_SEAL_EVERY_EVENTS = 1000;
export const DEFAULT_SEAL_INTERVAL_SECONDS = 5;
/**
 * Slow-client defaults (ADR 0056): a legitimate OAuth client sends a request of a few kB at once, so 10 s for
 * the head and 30 s for the whole request (bodies are at most 64 kB) cut only stalled or drip-fed requests;
 * 5 s keep-alive matches Node's; 100 connections per address is far above one client's need and still caps
 * what one address can hold (set 0 behind a proxy or load balancer, which all traffic comes from).
 */
export const DEFAULT_HTTP_LIMITS: HttpServerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnectionsPerSource: 100 };
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function readServiceSettings(
  serviceName: string,
  defaults: ServiceDefaults,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ReadSettingsResult {
  const warnings: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };

  const port = integerVariable('PORT', value('PORT'), defaults.port, 0, 65535, ' (0 = any free port)');
  const managementPortText = value('MANAGEMENT_PORT');
  const managementPort = managementPortText === undefined ? undefined : integerVariable('MANAGEMENT_PORT', managementPortText, 0, 0, 65535, ' (0 = any free port)');
  if (managementPort !== undefined && managementPort !== 0 && managementPort === port) {
    throw new ConfigError(`MANAGEMENT_PORT must differ from PORT (${port}); leave it unset to serve /metrics, /healthz and /readyz on the public port`);
  }
  const baseUrlText = value('BASE_URL');
  if (baseUrlText === undefined && port === 0) {
    throw new ConfigError('BASE_URL must be set when PORT is 0 (the identifier cannot be derived from a port chosen at bind time)');
  }
  const baseUrl = parseBaseUrl(baseUrlText ?? defaults.baseUrl ?? `http://localhost:${port}`, warnings);

  const configFileText = value('CONFIG_FILE');
  const configFile = configFileText ?? defaults.configFile;
  const signingKeyFile = value('SIGNING_KEY_FILE');
  const connectionString = value('EVENTSTORE_CONNECTION_STRING');
  if (connectionString !== undefined) checkConnectionString(connectionString);

  const logLevel = value('LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${describeValue(logLevel)}`);
  }

  const settings: ServiceSettings = {
    serviceName,
    port,
    ...(managementPort !== undefined ? { managementPort } : {}),
    baseUrl,
    dataDir: resolve(cwd, value('DATA_DIR') ?? defaults.dataDir),
    ...(connectionString !== undefined ? { eventStoreConnectionString: connectionString } : {}),
    configFile,
    configFilePath: resolve(cwd, configFile),
    configFileIsDefault: configFileText === undefined,
    ...(signingKeyFile !== undefined ? { signingKeyFile: resolve(cwd, signingKeyFile) } : {}),
    logLevel: logLevel as LogLevel,
    requestBodyLimitBytes: integerVariable(
      'REQUEST_BODY_LIMIT_BYTES',
      value('REQUEST_BODY_LIMIT_BYTES'),
      defaults.requestBodyLimitBytes ?? DEFAULT_REQUEST_BODY_LIMIT_BYTES,
      1024,
      10 * 1024 * 1024,
    ),
    shutdownTimeoutMs:
      1000 *
      integerVariable(
        'SHUTDOWN_TIMEOUT_SECONDS',
        value('SHUTDOWN_TIMEOUT_SECONDS'),
        defaults.shutdownTimeoutSeconds ?? DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
        1,
        600,
      ),
    sealEveryEvents: integerVariable('SEAL_EVERY_EVENTS', value('SEAL_EVERY_EVENTS'), DEFAULT_SEAL_EVERY_EVENTS, 1, 2000),
    sealIntervalMs: 1000 * integerVariable('SEAL_INTERVAL_SECONDS', value('SEAL_INTERVAL_SECONDS'), DEFAULT_SEAL_INTERVAL_SECONDS, 1, 3600),
    http: httpLimits(value),
  };
  if (!isAbsolute(settings.dataDir)) throw new ConfigError(`DATA_DIR could not be resolved to an absolute path`);
  return { settings, warnings };
}

function httpLimits(value: (name: string) => string | undefined): HttpServerLimits {
  const headersTimeoutMs = integerVariable('HTTP_HEADERS_TIMEOUT_MS', value('HTTP_HEADERS_TIMEOUT_MS'), DEFAULT_HTTP_LIMITS.headersTimeoutMs, 100, 600_000);
  const requestTimeoutMs = integerVariable('HTTP_REQUEST_TIMEOUT_MS', value('HTTP_REQUEST_TIMEOUT_MS'), DEFAULT_HTTP_LIMITS.requestTimeoutMs, 100, 600_000);
  // Node refuses a head timeout above the whole request's (the request timeout would cut first anyway).
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integerVariable('HTTP_KEEP_ALIVE_TIMEOUT_MS', value('HTTP_KEEP_ALIVE_TIMEOUT_MS'), DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs, 100, 600_000),
    maxConnectionsPerSource: integerVariable(
      'HTTP_MAX_CONNECTIONS_PER_SOURCE', value('HTTP_MAX_CONNECTIONS_PER_SOURCE'), DEFAULT_HTTP_LIMITS.maxConnectionsPerSource, 0, 1_000_000, ' (0 = no cap)',
    ),
  };
}

function integerVariable(name: string, raw: string | undefined, fallback: number, min: number, max: number, hint = ''): number {
  if (raw === undefined) return fallback;
  const parsed = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new ConfigError(`${name} must be an integer ${min}..${max}${hint}, got ${describeValue(raw)}`);
  }
  return parsed;
}

/**
 * The base URL is the `issuer` identifier that tokens and metadata repeat byte for byte, so it is
 * taken only in its canonical form: a URL parser would otherwise quietly turn `HTTP://Host:4000/`
 * into something else than what clients compare against.
 */
function parseBaseUrl(raw: string, warnings: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`BASE_URL must be an absolute http(s) URL, got ${describeValue(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`BASE_URL must use http or https, got ${describeValue(raw)}`);
  if (url.username || url.password) throw new ConfigError('BASE_URL must not contain credentials');
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) throw new ConfigError(`BASE_URL must not have a query or fragment, got ${describeValue(raw)}`);
  if (raw.endsWith('/')) throw new ConfigError(`BASE_URL must not end with "/", got ${describeValue(raw)}`);
  const canonical = url.pathname === '/' ? url.origin : `${url.origin}${url.pathname}`;
  if (canonical !== raw) throw new ConfigError(`BASE_URL must be written in canonical form ${describeValue(canonical)}, got ${describeValue(raw)}`);
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    warnings.push(`BASE_URL ${raw} uses plain http on a non-loopback host; terminate TLS in front of the service in production`);
  }
  return raw;
}

function checkConnectionString(raw: string): void {
  if (!EVENT_STORE_CONNECTION_STRING.test(raw)) {
    // Not quoted back: a connection string may carry credentials.
    throw new ConfigError(
      'EVENTSTORE_CONNECTION_STRING must start with esdb://, kurrentdb:// (or their +discover forms) (e.g. kurrentdb://localhost:2113?tls=false), or be unset for the embedded store',
    );
  }
}
