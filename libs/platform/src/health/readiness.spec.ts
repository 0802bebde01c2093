import { ReadinessRegistry } from './readiness.js';

describe('ReadinessRegistry', () => {
  it('is ready when every check passes (and when there is none)', async () => {
    const registry = new ReadinessRegistry();
    expect(await registry.evaluate()).toEqual({ ready: true, checks: [] });
    registry.register({ name: 'a', check: async () => ({ ok: true }) });
    expect(await registry.evaluate()).toEqual({ ready: true, checks: [{ name: 'a', ok: true }] });
  });

  it('reports which check failed, including one that throws or hangs', async () => {
    const registry = new ReadinessRegistry();
    registry.register({ name: 'store', check: async () => ({ ok: true }) });
    registry.register({ name: 'projection', check: async () => ({ ok: false, detail: '12 events behind' }) });
    registry.register({ name: 'broken', check: async () => Promise.reject(new Error('boom')) });
    registry.register({ name: 'hung', check: () => new Promise(() => undefined) });
    const report = await registry.evaluate(50);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual([
      { name: 'store', ok: true },
      { name: 'projection', ok: false, detail: '12 events behind' },
      { name: 'broken', ok: false, detail: 'boom' },
      { name: 'hung', ok: false, detail: 'no answer within 50 ms' },
    ]);
  });

  it('refuses two checks with one name', () => {
    const registry = new ReadinessRegistry();
    registry.register({ name: 'a', check: async () => ({ ok: true }) });
    expect(() => registry.register({ name: 'a', check: async () => ({ ok: true }) })).toThrow('readiness check "a" is already registered');
  });

  it('reports not ready once shutdown began', async () => {
    const registry = new ReadinessRegistry();
    registry.markShuttingDown();
    expect(await registry.evaluate()).toEqual({ ready: false, checks: [{ name: 'shutdown', ok: false, detail: 'the service is shutting down' }] });
  });
});
