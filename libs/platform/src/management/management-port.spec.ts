import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, Module } from '@nestjs/common';
import { bootstrapService, type RunningService } from '../bootstrap/bootstrap-service.js';
import type { ServiceDefinition } from '../bootstrap/service-definition.js';
import { object, string } from '../config/schema.js';
import { ReadinessRegistry } from '../health/readiness.js';

@Controller('api')
class ApiController {
  @Get('hello')
  hello(): unknown {
    return { hello: 'world' };
  }
}

@Module({ controllers: [ApiController] })
class ApiModule {}

const testService: ServiceDefinition<{ greeting: string }> = {
  name: 'management-test',
  module: ApiModule,
  defaults: { port: 4998, dataDir: './data/management-test', configFile: 'config/test.json' },
  configSchema: object({ greeting: string() }),
};

let workDir: string;
const running: RunningService[] = [];

async function start(env: Record<string, string> = {}): Promise<RunningService> {
  const configFile = join(workDir, 'test.json');
  writeFileSync(configFile, JSON.stringify({ greeting: 'hello' }));
  const service = await bootstrapService(testService, {
    env: { PORT: '0', BASE_URL: 'http://test.example', DATA_DIR: join(workDir, 'data'), CONFIG_FILE: configFile, LOG_LEVEL: 'silent', ...env },
    logDestination: { write: () => undefined },
  });
  running.push(service);
  return service;
}

beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'platform-management-'));
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop('test finished')));
  rmSync(workDir, { recursive: true, force: true });
});

describe('MANAGEMENT_PORT (ADR 0045)', () => {
  it('unset: /metrics, /healthz and /readyz stay on the public port, and there is no management server', async () => {
    const service = await start();
    expect(service.managementUrl).toBeUndefined();
    for (const path of ['/metrics', '/healthz', '/readyz']) expect((await fetch(`${service.listenUrl}${path}`)).status).toBe(200);
  });

  it('set: the management paths answer only on the management port; the public port answers 404 for them', async () => {
    const service = await start({ MANAGEMENT_PORT: '0' });
    expect(service.managementUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.managementUrl).not.toBe(service.listenUrl);

    const metrics = await fetch(`${service.managementUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
    expect(await (await fetch(`${service.managementUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${service.managementUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: [{ name: 'event-store', ok: true }] });

    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const reply = await fetch(`${service.listenUrl}${path}`);
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
    }
    // The public API and /jwks stay on the public port; nothing of them is reachable on the management port.
    expect((await fetch(`${service.listenUrl}/api/hello`)).status).toBe(200);
    expect((await fetch(`${service.listenUrl}/jwks`)).status).toBe(200);
    expect((await fetch(`${service.managementUrl}/api/hello`)).status).toBe(404);
    expect((await fetch(`${service.managementUrl}/jwks`)).status).toBe(404);
    expect((await fetch(`${service.managementUrl}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('set: /readyz on the management port reports a failing check with 503', async () => {
    const service = await start({ MANAGEMENT_PORT: '0' });
    service.app.get(ReadinessRegistry).register({ name: 'projections', check: async () => ({ ok: false, detail: 'catching up' }) });
    const ready = await fetch(`${service.managementUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: expect.arrayContaining([{ name: 'projections', ok: false, detail: 'catching up' }]) });
  });

  it('set: stop() closes the management port too', async () => {
    const service = await start({ MANAGEMENT_PORT: '0' });
    const url = service.managementUrl!;
    await service.stop('test');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
