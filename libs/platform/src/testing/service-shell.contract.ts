/**
 * What every service shell does, checked over HTTP against the real app on the embedded store
 * (issue 2, item 7): one `listening on` line, /healthz, /readyz, /metrics, /jwks without private
 * members, dev keys kept with mode 0600 and reused after a restart, and clean 4xx answers to bad bodies.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_KEY_FILE_NAME } from '../keys/load-signing-keys.js';
import type { RunningService } from '../bootstrap/bootstrap-service.js';
import type { LogLine } from './service-harness.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface ServiceShellContractOptions {
  readonly serviceName: string;
  readonly baseUrl: string;
  readonly start: (dataDir: string) => Promise<{ service: RunningService; logs: LogLine[] }>;
  /** A JSON endpoint of this service, to send malformed and oversize bodies to. */
  readonly jsonPath: string;
  /** The service's `errorFormat` (default `oauth`): how platform-raised errors are spelled. */
  readonly errorFormat?: 'oauth' | 'problem';
}

/** The error body and content type a service of `format` answers for a platform-raised error. */
function expectedError(format: 'oauth' | 'problem', status: number, error: string, description: string): { body: Record<string, unknown>; contentType: string } {
  if (format === 'oauth') return { body: { error, error_description: description }, contentType: 'application/json; charset=utf-8' };
  const titles: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 413: 'Payload Too Large' };
  return { body: { type: 'about:blank', title: titles[status], status, error, detail: description }, contentType: 'application/problem+json; charset=utf-8' };
}

export function describeServiceShellContract(options: ServiceShellContractOptions): void {
  describe(`${options.serviceName} service shell (in-process, embedded store)`, () => {
    let dataDir: string;
    let service: RunningService;
    let logs: LogLine[];
    const url = (path: string): string => `${service.listenUrl}${path}`;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), `${options.serviceName}-e2e-`));
      ({ service, logs } = await options.start(dataDir));
    });
    afterAll(async () => {
      await service?.stop('tests finished');
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('logs one "listening on <BASE_URL>" line', () => {
      expect(logs.filter((line) => line.msg.startsWith('listening on')).map((line) => line.msg)).toEqual([`listening on ${options.baseUrl}`]);
    });

    it('GET /healthz is 200 {"status":"ok"}', async () => {
      const reply = await fetch(url('/healthz'));
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ status: 'ok' });
    });

    it('GET /readyz is 200 once the event store answers and every other check passes', async () => {
      const reply = await fetch(url('/readyz'));
      expect(reply.status).toBe(200);
      const body = (await reply.json()) as { status: string; checks: { name: string; ok: boolean }[] };
      expect(body.status).toBe('ready');
      expect(body.checks).toContainEqual({ name: 'event-store', ok: true });
      expect(body.checks.every((check) => check.ok)).toBe(true);
    });

    it('GET /metrics is Prometheus text with the HTTP request histogram', async () => {
      await fetch(url('/healthz'));
      const reply = await fetch(url('/metrics'));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await reply.text();
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(text).toContain(`http_request_duration_seconds_count{service="${options.serviceName}",method="GET",route="/healthz",status_code="200"}`);
      expect(text).toContain('nodejs_heap_size_used_bytes');
    });

    it('GET /jwks publishes the ES256 signing key without private members', async () => {
      const reply = await fetch(url('/jwks'));
      expect(reply.status).toBe(200);
      const jwks = (await reply.json()) as { keys: Record<string, unknown>[] };
      expect(jwks.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' }]);
      for (const member of PRIVATE_MEMBERS) expect(jwks.keys[0]).not.toHaveProperty(member);
    });

    it('keeps the development private key in DATA_DIR/keys with mode 0600 and warns about it', () => {
      expect(statSync(join(dataDir, 'keys', DEV_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
      expect(logs.some((line) => line.level === 'warn' && line.msg.startsWith('USING DEVELOPMENT SIGNING KEYS'))).toBe(true);
    });

    it('answers a malformed JSON body with 400 invalid_request, not 500', async () => {
      const reply = await fetch(url(options.jsonPath), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"description": "x",}' });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('cache-control')).toBe('no-store');
      const expected = expectedError(options.errorFormat ?? 'oauth', 400, 'invalid_request', 'the request body is not valid JSON');
      expect(reply.headers.get('content-type')).toBe(expected.contentType);
      expect(await reply.json()).toEqual(expected.body);
    });

    it('answers a body over 64 kB with 413', async () => {
      const body = JSON.stringify({ description: 'x'.repeat(70 * 1024) });
      const reply = await fetch(url(options.jsonPath), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(reply.status).toBe(413);
      expect(await reply.json()).toEqual(expectedError(options.errorFormat ?? 'oauth', 413, 'invalid_request', 'the request body exceeds 65536 bytes').body);
    });

    it('answers an unknown path with a 404 JSON error', async () => {
      const reply = await fetch(url('/no-such-endpoint/deeper'));
      expect(reply.status).toBe(404);
      const expected = expectedError(options.errorFormat ?? 'oauth', 404, 'not_found', 'Cannot GET /no-such-endpoint/deeper');
      expect(reply.headers.get('content-type')).toBe(expected.contentType);
      expect(await reply.json()).toEqual(expected.body);
    });

    it('reuses its development keys after a restart on the same DATA_DIR', async () => {
      const before = await (await fetch(url('/jwks'))).json();
      await service.stop('restart');
      ({ service, logs } = await options.start(dataDir));
      expect(await (await fetch(url('/jwks'))).json()).toEqual(before);
      expect(logs.find((line) => line.msg.startsWith('USING DEVELOPMENT SIGNING KEYS'))?.['generated']).toBe(false);
    });
  });
}
