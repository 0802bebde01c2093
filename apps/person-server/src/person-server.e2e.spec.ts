import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV_KEY_FILE_NAME, type RunningService } from '@mission/platform';
import { startPersonServer, type LogLine } from './testing/run-person-server.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

let dataDir: string;
let service: RunningService;
let logs: LogLine[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'person-server-e2e-'));
  ({ service, logs } = await startPersonServer(dataDir));
});

afterAll(async () => {
  await service?.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const url = (path: string): string => `${service.listenUrl}${path}`;

describe('person-server service shell (in-process, embedded store)', () => {
  it('logs one "listening on <BASE_URL>" line', () => {
    expect(logs.filter((line) => line.msg.startsWith('listening on')).map((line) => line.msg)).toEqual(['listening on http://person-server.test']);
  });

  it('GET /healthz is 200 {"status":"ok"}', async () => {
    const reply = await fetch(url('/healthz'));
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 once the event store answers', async () => {
    const reply = await fetch(url('/readyz'));
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ status: 'ready', checks: [{ name: 'event-store', ok: true }] });
  });

  it('GET /metrics is Prometheus text with the HTTP request histogram', async () => {
    await fetch(url('/healthz'));
    const text = await (await fetch(url('/metrics'))).text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('http_request_duration_seconds_count{service="person-server",method="GET",route="/healthz",status_code="200"}');
  });

  it('GET /jwks publishes the ES256 signing key without private members', async () => {
    const jwks = (await (await fetch(url('/jwks'))).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: expect.any(String), alg: 'ES256', use: 'sig' }]);
    for (const member of PRIVATE_MEMBERS) expect(jwks.keys[0]).not.toHaveProperty(member);
    expect(statSync(join(dataDir, 'keys', DEV_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
  });

  it('answers a malformed JSON body with 400 invalid_request, not 500', async () => {
    const reply = await fetch(url('/mission'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"description": "x",}' });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: 'invalid_request', error_description: 'the request body is not valid JSON' });
  });

  it('answers a body over 64 kB with 413', async () => {
    const reply = await fetch(url('/mission'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ description: 'x'.repeat(70 * 1024) }) });
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ error: 'invalid_request', error_description: 'the request body exceeds 65536 bytes' });
  });

  it('answers an unknown path with a 404 JSON error', async () => {
    const reply = await fetch(url('/mission/unknown/deeper'));
    expect(reply.status).toBe(404);
    expect(await reply.json()).toEqual({ error: 'not_found', error_description: 'Cannot GET /mission/unknown/deeper' });
  });

  it('reuses its development keys after a restart on the same DATA_DIR', async () => {
    const before = await (await fetch(url('/jwks'))).json();
    await service.stop('restart');
    ({ service, logs } = await startPersonServer(dataDir));
    expect(await (await fetch(url('/jwks'))).json()).toEqual(before);
  });
});
