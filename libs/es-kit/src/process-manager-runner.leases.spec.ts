import type { RecordedEvent } from '@mission/event-store';
import type { ProcessManager } from './process-manager.js';
import { ProcessManagerRunner } from './process-manager-runner.js';
import { eventually, tempStore } from './testing-store.spec-helper.js';
import { incarnationOf, WorkNotClaimableError, workItemDecider, type WorkState } from './work-item.decider.js';

const NOW = new Date('2026-11-26T10:00:00Z');
const claimedBy = (replica: string): WorkState => ({ status: 'claimed', key: 'k', payload: {}, attempts: 1, replica, leaseUntil: new Date(NOW.getTime() + 60_000) });
const claim = (replica: string) => ({ type: 'ClaimWork' as const, now: NOW, replica, leaseMs: 60_000 });

describe('work leases across restarts (issue 15 "Also", ADR 0058)', () => {
  it('lets a new start of the same replica take a live claim of its earlier start, and nobody else before the lease ends', () => {
    const held = claimedBy(incarnationOf('node-1', 'a1'));
    expect(workItemDecider.decide(claim(incarnationOf('node-1', 'b2')), held)).toEqual([
      { type: 'WorkClaimed', data: { attempt: 2, replica: 'node-1#b2', lease_until: new Date(NOW.getTime() + 60_000).toISOString() } },
    ]);
    expect(() => workItemDecider.decide(claim(incarnationOf('node-2', 'c3')), held)).toThrow(WorkNotClaimableError);
    expect(() => workItemDecider.decide(claim(incarnationOf('node-1', 'a1')), held)).toThrow(WorkNotClaimableError);
    // A claimant whose id only starts like the holder's is another replica.
    expect(() => workItemDecider.decide(claim(incarnationOf('node-10', 'd4')), held)).toThrow(WorkNotClaimableError);
    // Claims written before incarnations existed are left to their lease.
    expect(() => workItemDecider.decide(claim(incarnationOf('node-1', 'b2')), claimedBy('node-1-1234-abcdef'))).toThrow(WorkNotClaimableError);
  });

  describe('a restarted runner', () => {
    let env: Awaited<ReturnType<typeof tempStore>>;
    beforeEach(async () => (env = await tempStore()));
    afterEach(() => env.dispose());

    it('takes back the work its previous start claimed at once, although the lease (an hour) has not run out', async () => {
      // The clock stands still: no lease can run out during this test.
      const clock = () => NOW;
      const performed: string[] = [];
      let started!: () => void;
      const attemptStarted = new Promise<void>((resolve) => (started = resolve));
      const manager = (perform: ProcessManager['perform']): ProcessManager => ({
        name: 'cascade',
        triggers: ['mission'],
        triggerTypes: ['MissionRevoked'],
        plan: (event: RecordedEvent) => [{ key: event.streamName, dueAt: new Date(0), payload: {} }],
        perform,
        retry: { leaseMs: 3_600_000 },
      });
      // First start: claims the work, then stops in the middle of it (its claim stays, as after kill -9).
      const first = new ProcessManagerRunner(env.store, manager(async (_work, signal) => {
        started();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('stopped');
      }), { clock, replicaId: 'node-1', pollMs: 10 });
      await first.start();
      await env.store.appendToStream('mission-a', [{ type: 'MissionRevoked', data: {} }]);
      await attemptStarted;
      await first.stop();
      const before: string[] = [];
      for await (const event of env.store.readStream('pm_cascade-mission-a')) before.push(event.type);
      expect(before).toEqual(['WorkScheduled', 'WorkClaimed']);

      const second = new ProcessManagerRunner(env.store, manager(async (work) => void performed.push(work.key)), { clock, replicaId: 'node-1', pollMs: 10 });
      await second.start();
      try {
        const types = async () => {
          const seen: string[] = [];
          for await (const event of env.store.readStream('pm_cascade-mission-a')) seen.push(event.type);
          return seen;
        };
        await eventually(async () => (await types()).includes('WorkCompleted'));
        expect(await types()).toEqual(['WorkScheduled', 'WorkClaimed', 'WorkClaimed', 'WorkCompleted']);
        expect(performed).toEqual(['mission-a']);
      } finally {
        await second.stop();
      }
    });
  });
});
