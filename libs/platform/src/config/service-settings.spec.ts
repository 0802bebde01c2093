import { ConfigError } from './config-error.js';
import { readServiceSettings, type ServiceDefaults } from './service-settings.js';

const defaults: ServiceDefaults = { port: 4000, dataDir: './data/issuer', configFile: 'config/issuer.json' };
const read = (env: Record<string, string>) => readServiceSettings('issuer', defaults, env, '/srv/app');
const messageOf = (env: Record<string, string>): string => {
  try {
    read(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('readServiceSettings', () => {
  it('applies the per-service defaults, resolving paths against the working directory', () => {
    const { settings, warnings } = read({});
    expect(settings).toMatchObject({
      serviceName: 'issuer',
      port: 4000,
      baseUrl: 'http://localhost:4000',
      dataDir: '/srv/app/data/issuer',
      configFile: 'config/issuer.json',
      configFilePath: '/srv/app/config/issuer.json',
      configFileIsDefault: true,
      logLevel: 'info',
      requestBodyLimitBytes: 65536,
      shutdownTimeoutMs: 10_000,
      sealEveryEvents: 1000,
      sealIntervalMs: 5000,
    });
    expect(settings.eventStoreConnectionString).toBeUndefined();
    expect(settings.signingKeyFile).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('reads every variable', () => {
    const { settings } = read({
      PORT: '5000',
      BASE_URL: 'https://issuer.example.com/tenant-a',
      DATA_DIR: '/var/lib/issuer',
      EVENTSTORE_CONNECTION_STRING: 'esdb://eventstore:2113?tls=false',
      CONFIG_FILE: '/etc/issuer.json',
      SIGNING_KEY_FILE: 'secrets/key.json',
      LOG_LEVEL: 'debug',
      REQUEST_BODY_LIMIT_BYTES: '131072',
      SHUTDOWN_TIMEOUT_SECONDS: '25',
      SEAL_EVERY_EVENTS: '200',
      SEAL_INTERVAL_SECONDS: '2',
    });
    expect(settings).toMatchObject({
      port: 5000,
      baseUrl: 'https://issuer.example.com/tenant-a',
      dataDir: '/var/lib/issuer',
      eventStoreConnectionString: 'esdb://eventstore:2113?tls=false',
      configFilePath: '/etc/issuer.json',
      configFileIsDefault: false,
      signingKeyFile: '/srv/app/secrets/key.json',
      logLevel: 'debug',
      requestBodyLimitBytes: 131072,
      shutdownTimeoutMs: 25_000,
      sealEveryEvents: 200,
      sealIntervalMs: 2000,
    });
  });

  it('MANAGEMENT_PORT: unset keeps the management paths on the public port; set, it is read and must differ from PORT', () => {
    expect(read({}).settings.managementPort).toBeUndefined();
    expect(read({ MANAGEMENT_PORT: '9464' }).settings.managementPort).toBe(9464);
    expect(read({ PORT: '0', BASE_URL: 'http://localhost:4000', MANAGEMENT_PORT: '0' }).settings.managementPort).toBe(0);
    expect(messageOf({ PORT: '5000', MANAGEMENT_PORT: '5000' })).toContain('MANAGEMENT_PORT must differ from PORT (5000)');
    expect(messageOf({ MANAGEMENT_PORT: 'metrics' })).toBe('MANAGEMENT_PORT must be an integer 0..65535 (0 = any free port), got "metrics"');
  });

  it('derives BASE_URL from PORT when only PORT is given', () => {
    expect(read({ PORT: '5000' }).settings.baseUrl).toBe('http://localhost:5000');
  });

  it('treats empty variables as unset', () => {
    expect(read({ PORT: '', EVENTSTORE_CONNECTION_STRING: '  ' }).settings).toMatchObject({ port: 4000 });
    expect(read({ EVENTSTORE_CONNECTION_STRING: '' }).settings.eventStoreConnectionString).toBeUndefined();
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer 0..65535 (0 = any free port), got "abc"'],
    [{ PORT: '65536' }, 'PORT must be an integer 0..65535 (0 = any free port), got "65536"'],
    [{ PORT: '-1' }, 'PORT must be an integer 0..65535 (0 = any free port), got "-1"'],
    [{ PORT: '4000.5' }, 'got "4000.5"'],
    [{ PORT: '0' }, 'BASE_URL must be set when PORT is 0'],
    [{ BASE_URL: 'localhost:4000' }, 'BASE_URL must use http or https, got "localhost:4000"'],
    [{ BASE_URL: 'not a url' }, 'BASE_URL must be an absolute http(s) URL, got "not a url"'],
    [{ BASE_URL: 'http://localhost:4000/' }, 'BASE_URL must not end with "/"'],
    [{ BASE_URL: 'https://issuer.example?x=1' }, 'BASE_URL must not have a query or fragment'],
    [{ BASE_URL: 'https://user:pw@issuer.example' }, 'BASE_URL must not contain credentials'],
    [{ BASE_URL: 'HTTPS://Issuer.Example' }, 'BASE_URL must be written in canonical form "https://issuer.example"'],
    [{ BASE_URL: 'https://issuer.example:443' }, 'canonical form "https://issuer.example"'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [{ REQUEST_BODY_LIMIT_BYTES: '10' }, 'REQUEST_BODY_LIMIT_BYTES must be an integer 1024..10485760, got "10"'],
    [{ SHUTDOWN_TIMEOUT_SECONDS: '0' }, 'SHUTDOWN_TIMEOUT_SECONDS must be an integer 1..600, got "0"'],
  ])('refuses %j with a message naming the variable', (env, expected) => {
    expect(messageOf(env)).toContain(expected);
  });

  it('ADR 0053: accepts KurrentDB connection strings (kurrentdb://, kurrentdb+discover://) as given', () => {
    expect(read({ EVENTSTORE_CONNECTION_STRING: 'kurrentdb://kurrentdb:2113?tls=false' }).settings.eventStoreConnectionString).toBe('kurrentdb://kurrentdb:2113?tls=false');
    expect(read({ EVENTSTORE_CONNECTION_STRING: 'kurrentdb+discover://a.example:2113' }).settings.eventStoreConnectionString).toBe('kurrentdb+discover://a.example:2113');
  });

  it('refuses a connection string of another scheme without echoing it (it may hold credentials)', () => {
    const message = messageOf({ EVENTSTORE_CONNECTION_STRING: 'postgres://user:secret@db/events' });
    expect(message).toContain('EVENTSTORE_CONNECTION_STRING must start with esdb://, kurrentdb://');
    expect(message).not.toContain('secret');
  });

  it('warns about plain http on a public host', () => {
    const { warnings } = read({ BASE_URL: 'http://issuer.example' });
    expect(warnings).toEqual([expect.stringContaining('plain http on a non-loopback host')]);
  });

  it('issue 15 item 7: bounds slow clients by default and reads the HTTP limits (ADR 0056)', () => {
    expect(read({}).settings.http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnectionsPerSource: 100 });
    const env = { HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000', HTTP_MAX_CONNECTIONS_PER_SOURCE: '0' };
    expect(read(env).settings.http).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000, maxConnectionsPerSource: 0 });
    expect(messageOf({ HTTP_HEADERS_TIMEOUT_MS: '50' })).toMatch(/HTTP_HEADERS_TIMEOUT_MS must be an integer 100\.\.600000/);
    expect(messageOf({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toMatch(/must not exceed HTTP_REQUEST_TIMEOUT_MS/);
  });
});
