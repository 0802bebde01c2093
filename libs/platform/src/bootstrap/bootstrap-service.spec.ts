import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { connect } from 'node:net';
import { BadRequestException, Controller, Get, Module, Param, Post, Req } from '@nestjs/common';
import { EventStoreStartupError } from '@mission/event-store';
import type { FastifyRequest as Request } from 'fastify';
import { ConfigError } from '../config/config-error.js';
import { object, string } from '../config/schema.js';
import { ReadinessRegistry } from '../health/readiness.js';
import { ProtocolError } from '@mission/protocol-errors';
import { bootstrapService, type RunningService } from './bootstrap-service.js';
import { describeStartupFailure } from './describe-startup-failure.js';
import type { ServiceDefinition } from './service-definition.js';

/** The slow route tells the test when a request reached it, and answers once the test lets it (see "stops gracefully"). */
const slowRoute: { entered: () => void; release: Promise<void> } = { entered: () => undefined, release: Promise.resolve() };

@Controller('test')
class TestController {
  @Post('echo')
  echo(@Req() request: Request & { rawBody?: Buffer }): unknown {
    return { body: request.body as unknown, rawBytes: request.rawBody?.length ?? null };
  }

  @Get('items/:id')
  item(@Param('id') id: string): unknown {
    return { id };
  }

  @Get('protocol-error')
  protocolError(): never {
    throw new ProtocolError(401, 'invalid_client', 'client authentication failed', {
      members: { mission_denial_reason: 'none' },
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_client"' },
    });
  }

  @Get('http-exception')
  httpException(): never {
    throw new BadRequestException('mission_id is required');
  }

  @Get('bug')
  bug(): never {
    throw new Error('internal detail: /srv/secret/path');
  }

  @Get('slow')
  async slow(): Promise<unknown> {
    slowRoute.entered();
    await slowRoute.release;
    return { done: true };
  }
}

@Module({ controllers: [TestController] })
class TestModule {}

const testService: ServiceDefinition<{ greeting: string }> = {
  name: 'test-service',
  module: TestModule,
  defaults: { port: 4999, dataDir: './data/test', configFile: 'config/test.json' },
  configSchema: object({ greeting: string() }, { unknownKeys: 'warn' }),
};

type LogLine = Record<string, unknown> & { msg: string; level: string };

function logCapture(): { destination: { write(chunk: string): void }; lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { lines, destination: { write: (chunk: string) => void lines.push(JSON.parse(chunk) as LogLine) } };
}

let workDir: string;
let configFile: string;
const running: RunningService[] = [];

function envFor(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PORT: '0', BASE_URL: 'http://test.example', DATA_DIR: dataDir, CONFIG_FILE: configFile, LOG_LEVEL: 'debug', REQUEST_BODY_LIMIT_BYTES: '2048', ...extra };
}

async function start(extra: Record<string, string> = {}, dataDir = join(workDir, 'data')): Promise<{ service: RunningService; lines: LogLine[] }> {
  const { destination, lines } = logCapture();
  const service = await bootstrapService(testService, { env: envFor(dataDir, extra), logDestination: destination });
  running.push(service);
  return { service, lines };
}

beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'platform-bootstrap-'));
  configFile = join(workDir, 'test.json');
  writeFileSync(configFile, JSON.stringify({ greeting: 'hello', unexpected: 1 }));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop('test finished')));
  rmSync(workDir, { recursive: true, force: true });
});

describe('bootstrapService', () => {
  it('logs JSON only, with exactly one "listening on <BASE_URL>" line and config warnings', async () => {
    const { lines } = await start();
    expect(lines.filter((line) => line.msg.startsWith('listening on'))).toEqual([expect.objectContaining({ msg: 'listening on http://test.example', level: 'info' })]);
    expect(lines.some((line) => line.context === 'RoutesResolver' && line.level === 'debug')).toBe(true);
    expect(lines.some((line) => line.msg.includes('unexpected: unknown key, ignored') && line.level === 'warn')).toBe(true);
    expect(lines.every((line) => line['service'] === 'test-service' && typeof line['time'] === 'string')).toBe(true);
  });

  it('serves /healthz and /readyz with the event-store check', async () => {
    const { service } = await start();
    const health = await fetch(`${service.listenUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${service.listenUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: [{ name: 'event-store', ok: true }] });
  });

  it('answers /readyz 503 naming a failing registered check', async () => {
    const { service } = await start();
    service.app.get(ReadinessRegistry).register({ name: 'projections', check: async () => ({ ok: false, detail: 'catching up' }) });
    const ready = await fetch(`${service.listenUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: 'not_ready',
      checks: [
        { name: 'event-store', ok: true },
        { name: 'projections', ok: false, detail: 'catching up' },
      ],
    });
  });

  it('parses JSON bodies, leaves form bodies to their endpoint, and keeps the raw bytes of both', async () => {
    const { service } = await start();
    const json = '{"a": [1, 2],  "b": "ü"}';
    const jsonReply = await fetch(`${service.listenUrl}/test/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: json });
    expect(await jsonReply.json()).toEqual({ body: { a: [1, 2], b: 'ü' }, rawBytes: Buffer.byteLength(json) });
    const form = 'grant_type=refresh_token&a%5Bb%5D=c';
    const formReply = await fetch(`${service.listenUrl}/test/echo`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form });
    expect(await formReply.json()).toEqual({ rawBytes: form.length });
  });

  it('answers a form body of more than 200 parameters with 413, and takes 200', async () => {
    const { service } = await start();
    const form = (count: number) => Array.from({ length: count }, (_, index) => `p${index}=1`).join('&');
    const post = (body: string) => fetch(`${service.listenUrl}/test/echo`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect((await post(form(200))).status).toBe(201);
    const over = await post(form(201));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ error: 'invalid_request', error_description: 'the form body has too many parameters' });
  });

  it('answers malformed JSON with 400 invalid_request, not 500', async () => {
    const { service } = await start();
    const reply = await fetch(`${service.listenUrl}/test/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a": ' });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await reply.json()).toEqual({ error: 'invalid_request', error_description: 'the request body is not valid JSON' });
  });

  it('inflates a gzip body and answers bytes that are not gzip with 400 invalid_request, not 500', async () => {
    const { service } = await start();
    const form = 'grant_type=refresh_token';
    const inflated = await fetch(`${service.listenUrl}/test/echo`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' }, body: gzipSync(form),
    });
    expect(await inflated.json()).toEqual({ rawBytes: form.length });
    const corrupt = await fetch(`${service.listenUrl}/test/echo`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' }, body: 'not gzip at all',
    });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toEqual({ error: 'invalid_request', error_description: 'the request body is not valid gzip data' });
  });

  it('answers a body over the limit with 413', async () => {
    const { service } = await start();
    const reply = await fetch(`${service.listenUrl}/test/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(4096) }) });
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ error: 'invalid_request', error_description: 'the request body exceeds 2048 bytes' });
  });

  it('answers a malformed URL like every other error (OAuth-shaped 400, not the HTTP server\'s own body)', async () => {
    const { service } = await start();
    const reply = await fetch(`${service.listenUrl}/test/%zz`);
    expect(reply.status).toBe(400);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(await reply.json()).toEqual({ error: 'invalid_request', error_description: 'the request URL is malformed' });
  });

  it('a client that hangs up in the middle of its body is no server error (nothing logged as unexpected)', async () => {
    const { service, lines } = await start();
    const socket = connect(service.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    while (!lines.some((line) => line.msg === 'request' && line['path'] === '/test/echo')) {
      if (!socket.destroyed) socket.destroy();
      await delay(10);
    }
    expect(lines.filter((line) => line.msg === 'request failed with an unexpected error')).toEqual([]);
    expect(lines.find((line) => line.msg === 'request' && line['path'] === '/test/echo')).toMatchObject({ aborted: true });
  });

  it('answers an unknown path with a 404 JSON error', async () => {
    const { service } = await start();
    const reply = await fetch(`${service.listenUrl}/no/such/path`);
    expect(reply.status).toBe(404);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(await reply.json()).toEqual({ error: 'not_found', error_description: 'Cannot GET /no/such/path' });
  });

  it('maps protocol errors and HTTP exceptions to OAuth-shaped bodies', async () => {
    const { service } = await start();
    const protocol = await fetch(`${service.listenUrl}/test/protocol-error`);
    expect(protocol.status).toBe(401);
    expect(protocol.headers.get('www-authenticate')).toBe('Bearer error="invalid_client"');
    expect(protocol.headers.get('cache-control')).toBe('no-store');
    expect(await protocol.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed', mission_denial_reason: 'none' });
    const http = await fetch(`${service.listenUrl}/test/http-exception`);
    expect(http.status).toBe(400);
    expect(await http.json()).toEqual({ error: 'invalid_request', error_description: 'mission_id is required' });
  });

  it('answers unexpected errors with a bare 500 server_error and logs the stack', async () => {
    const { service, lines } = await start();
    const reply = await fetch(`${service.listenUrl}/test/bug`);
    expect(reply.status).toBe(500);
    const text = await reply.text();
    expect(JSON.parse(text)).toEqual({ error: 'server_error' });
    expect(text).not.toContain('internal detail');
    const logged = lines.find((line) => line.msg === 'request failed with an unexpected error');
    expect((logged?.['err'] as { stack?: string })?.stack).toContain('internal detail: /srv/secret/path');
  });

  it('logs one line per request without query, body or credential headers', async () => {
    const { service, lines } = await start();
    await fetch(`${service.listenUrl}/test/echo?code=query-secret`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'DPoP auth-secret', DPoP: 'dpop-secret', Signature: 'sig=:signature-secret:', 'X-Request-Id': 'req-42' },
      body: '{"password":"body-secret"}',
    });
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ level: 'info', method: 'POST', path: '/test/echo', status: 201, request_id: 'req-42' });
    expect(typeof requestLines[0]!['duration_ms']).toBe('number');
    const everything = JSON.stringify(lines);
    for (const secret of ['query-secret', 'auth-secret', 'dpop-secret', 'signature-secret', 'body-secret']) expect(everything).not.toContain(secret);
  });

  it('sets a request id, drops x-powered-by and replaces an unsafe caller id', async () => {
    const { service } = await start();
    const reply = await fetch(`${service.listenUrl}/healthz`, { headers: { 'X-Request-Id': 'bad id\twith spaces' } });
    expect(reply.headers.get('x-powered-by')).toBeNull();
    expect(reply.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exposes Prometheus metrics with the request histogram by route pattern', async () => {
    const { service } = await start();
    await fetch(`${service.listenUrl}/test/items/123`);
    await fetch(`${service.listenUrl}/unknown-abc`);
    const reply = await fetch(`${service.listenUrl}/metrics`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/plain');
    const text = await reply.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('http_request_duration_seconds_count{service="test-service",method="GET",route="/test/items/:id",status_code="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{service="test-service",method="GET",route="unmatched",status_code="404"} 1');
    expect(text).not.toContain('/test/items/123');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('stops gracefully: finishes requests in flight, refuses new ones, releases the store', async () => {
    const dataDir = join(workDir, 'data');
    const { service, lines } = await start({}, dataDir);
    // The request is in flight once the handler has it (not after a fixed time), and stays so until released.
    let release!: () => void;
    slowRoute.release = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (slowRoute.entered = resolve));
    const inFlight = fetch(`${service.listenUrl}/test/slow`);
    await entered;
    const stopped = service.stop('SIGTERM');
    await delay(50);
    await expect(fetch(`${service.listenUrl}/healthz`)).rejects.toThrow();
    release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ done: true });
    await stopped;
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['event store closed', 'stopped']));
    // The embedded store holds an exclusive lock while open: a second start on the same DATA_DIR proves it was released.
    const again = await start({}, dataDir);
    expect((await fetch(`${again.service.listenUrl}/healthz`)).status).toBe(200);
  });

  it('refuses bad settings with a ConfigError before starting anything', async () => {
    const failure = bootstrapService(testService, { env: envFor(join(workDir, 'data'), { PORT: 'abc' }), logDestination: logCapture().destination });
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow('PORT must be an integer 0..65535 (0 = any free port), got "abc"');
  });

  it('fails start-up with an event-store error when the store file is not a database', async () => {
    const dataDir = join(workDir, 'corrupt');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'events.sqlite'), 'this is not a database, just text '.repeat(200));
    const error = await bootstrapService(testService, { env: envFor(dataDir), logDestination: logCapture().destination }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreStartupError);
    expect(describeStartupFailure(error)).toMatch(/^startup error: event store: .*events\.sqlite is not a readable event-store database/);
  });
});
