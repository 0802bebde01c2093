import { projectionReadinessCheck } from './projection-readiness.js';
import { processManagerReadinessCheck } from './process-manager-readiness.js';

describe('projection readiness (DESIGN 4: /readyz waits for projections to catch up)', () => {
  it('is ready once the projection has caught up', async () => {
    const check = projectionReadinessCheck({ name: 'status', isCaughtUp: async () => true });
    expect(check.name).toBe('projection:status');
    expect(await check.check()).toEqual({ ok: true });
  });

  it('is not ready while catching up', async () => {
    expect(await projectionReadinessCheck({ name: 'status', isCaughtUp: async () => false }).check()).toEqual({ ok: false, detail: 'projection status is catching up' });
  });

  it('is not ready when the projection failed, without leaking the error', async () => {
    const check = projectionReadinessCheck({ name: 'status', isCaughtUp: async () => { throw new Error('secret internals'); } });
    expect(await check.check()).toEqual({ ok: false, detail: 'projection status stopped on an event it could not apply' });
  });
});

describe('process-manager readiness', () => {
  it('is ready while the runner loops run, and not once one died', async () => {
    const runner: { name: string; failure: unknown; backlog: () => Promise<number> } = { name: 'cascade', failure: undefined, backlog: async () => 0 };
    const check = processManagerReadinessCheck(runner);
    expect(await check.check()).toEqual({ ok: true });
    runner.failure = new Error('store unreadable');
    expect(await check.check()).toEqual({ ok: false, detail: 'process manager cascade stopped' });
  });
});

describe('process-manager readiness under a backlog (issue 15 item 2)', () => {
  it('is not ready while more trigger events than the bound wait to be planned, and ready at the bound', async () => {
    let backlog = 11;
    const asked: number[] = [];
    const check = processManagerReadinessCheck({ name: 'revocation', failure: undefined, backlog: async (bound) => (asked.push(bound), Math.min(backlog, bound + 1)) }, 10);
    expect(await check.check()).toEqual({ ok: false, detail: 'process manager revocation is more than 10 trigger events behind' });
    backlog = 10;
    expect(await check.check()).toEqual({ ok: true });
    expect(asked).toEqual([10, 10]);
  });
});
