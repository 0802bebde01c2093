import { comparePositions, EventStoreUnavailableError, type EventStore, type Position, type RecordedEvent, type StreamAppend } from '@mission/event-store';
import type { ProcessManager } from './process-manager.js';
import { ProcessManagerRunner } from './process-manager-runner.js';
import { appendOnePerStream, eventually, gate, storeWith, tempStore } from './testing-store.spec-helper.js';
import { SCHEDULE_BATCH_STREAMS, WorkScheduleBatches } from './work-schedule-batches.js';

const isScheduling = (appends: readonly StreamAppend[]): boolean => appends.some((append) => append.streamName.startsWith('pm_'));

/** One unit of work per `MissionTerminated`, keyed by its mission stream, due never (nothing is performed). */
const planner = (planned: Position[] = []): ProcessManager => ({
  name: 'revoker',
  triggers: ['mission'],
  triggerTypes: ['MissionTerminated'],
  plan: (event: RecordedEvent) => (planned.push(event.position), [{ key: event.streamName, dueAt: new Date(8.64e15), payload: {} }]),
  perform: async () => undefined,
});

async function scheduledCounts(store: EventStore): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for await (const event of store.readAll({ filter: { streamCategories: ['pm_revoker'], eventTypes: ['WorkScheduled'] } })) counts.set(event.streamName, (counts.get(event.streamName) ?? 0) + 1);
  return counts;
}

const terminate = (store: EventStore, missions: number, from = 0) =>
  appendOnePerStream(store, missions, (i) => ({ streamName: `mission-${from + i}`, type: 'MissionTerminated', data: {} }));

describe('ProcessManagerRunner schedules work in batches (issue 15 item 6)', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  const runners: ProcessManagerRunner[] = [];
  beforeEach(async () => (env = await tempStore()));
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await env.dispose();
  });
  const start = async (store: EventStore, manager: ProcessManager, replicaId?: string) => {
    const runner = new ProcessManagerRunner(store, manager, { pollMs: 10, ...(replicaId ? { replicaId } : {}) });
    runners.push(runner);
    await runner.start();
    return runner;
  };

  it('issue 15 item 6: a history of 1,000 triggers costs a handful of scheduling commits, not one per trigger window', async () => {
    let commits = 0;
    // Every scheduling write, through either append method.
    const store = storeWith(env.store, {
      appendToStreams: (appends) => {
        if (isScheduling(appends)) commits++;
        return env.store.appendToStreams(appends);
      },
      appendToStream: (stream, events, options) => {
        if (stream.startsWith('pm_')) commits++;
        return env.store.appendToStream(stream, events, options);
      },
    });
    await terminate(env.store, 1_000);
    const runner = await start(store, planner());
    await eventually(() => runner.openWork().size === 1_000);
    expect([...(await scheduledCounts(env.store)).values()].every((count) => count === 1)).toBe(true);
    expect(commits).toBeLessThanOrEqual(Math.ceil(1_000 / SCHEDULE_BATCH_STREAMS) + 2);
  });

  it('a replayed trigger whose work stream exists already schedules nothing again, and its batch neighbours are scheduled', async () => {
    await terminate(env.store, 10);
    // A start before this one scheduled mission-3's work, then died before its checkpoint was saved.
    await env.store.appendToStream('pm_revoker-mission-3', [{ type: 'WorkScheduled', data: { key: 'mission-3', due_at: '9999-01-01T00:00:00.000Z', payload: {}, trigger: null } }]);
    const runner = await start(env.store, planner());
    await eventually(() => runner.openWork().size === 10);
    const counts = await scheduledCounts(env.store);
    expect(counts.size).toBe(10);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(runner.failure).toBeUndefined();
  });

  it('a crash while a batch commits: the checkpoint never passed a trigger whose work was not committed, and the restart schedules the rest once', async () => {
    const secondBatch = gate();
    const planned: Position[] = [];
    let batches = 0;
    const failing = storeWith(env.store, {
      appendToStreams: async (appends) => {
        if (!isScheduling(appends)) return env.store.appendToStreams(appends);
        if (++batches === 1) return env.store.appendToStreams(appends);
        await secondBatch.wait();
        throw new EventStoreUnavailableError('the disk went away (crash)');
      },
    });
    await terminate(env.store, 3 * SCHEDULE_BATCH_STREAMS);
    const first = await start(failing, planner(planned), 'replica-a');
    // The first batch committed; the second is in the store's hands; the loop took in the triggers after it.
    await eventually(async () => batches >= 2 && (await scheduledCounts(env.store)).size > 0 && planned.length >= 2 * SCHEDULE_BATCH_STREAMS);
    const committed = await scheduledCounts(env.store);
    const lastCommittedTrigger = planned[committed.size - 1]!;
    secondBatch.open();
    await eventually(() => first.failure !== undefined);
    await first.stop();
    runners.splice(0);
    // Never past the last trigger whose work is in the store, whatever was planned after it.
    const saved = await env.store.checkpoints.load('pm_revoker_triggers');
    expect(saved === undefined || comparePositions(saved, lastCommittedTrigger) <= 0).toBe(true);

    const restarted = await start(env.store, planner(), 'replica-a');
    await eventually(() => restarted.openWork().size === 3 * SCHEDULE_BATCH_STREAMS);
    const counts = await scheduledCounts(env.store);
    expect(counts.size).toBe(3 * SCHEDULE_BATCH_STREAMS);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  });

  it('batches commit concurrently but count in order: a later batch that committed while an earlier one failed moves no checkpoint', async () => {
    const firstBatch = gate();
    let batches = 0;
    const store = storeWith(env.store, {
      appendToStreams: async (appends) => {
        if (!isScheduling(appends)) return env.store.appendToStreams(appends);
        if (++batches === 1) {
          await firstBatch.wait();
          throw new EventStoreUnavailableError('the first batch failed');
        }
        return env.store.appendToStreams(appends);
      },
    });
    await terminate(env.store, 3 * SCHEDULE_BATCH_STREAMS);
    const runner = await start(store, planner(), 'replica-a');
    // Later batches committed while the first one still waits.
    await eventually(async () => (await scheduledCounts(env.store)).size >= SCHEDULE_BATCH_STREAMS);
    firstBatch.open();
    await eventually(() => runner.failure !== undefined);
    await runner.stop();
    runners.splice(0);
    // Every trigger's work is from the first batch on uncertain: the checkpoint is where it was (nowhere).
    expect(await env.store.checkpoints.load('pm_revoker_triggers')).toBeUndefined();

    const restarted = await start(env.store, planner(), 'replica-a');
    await eventually(() => restarted.openWork().size === 3 * SCHEDULE_BATCH_STREAMS);
    expect([...(await scheduledCounts(env.store)).values()].every((count) => count === 1)).toBe(true);
  });

  it('a tombstoned work stream stops the loop (readiness) and no checkpoint passes its trigger', async () => {
    await terminate(env.store, 5);
    await env.store.tombstoneStream('pm_revoker-mission-2');
    const planned: Position[] = [];
    const runner = await start(env.store, planner(planned));
    await eventually(() => runner.failure !== undefined);
    await runner.stop();
    runners.splice(0);
    const saved = await env.store.checkpoints.load('pm_revoker_triggers');
    expect(saved === undefined || comparePositions(saved, planned[2]!) < 0).toBe(true);
  });

  it('two replicas planning the same triggers at once create each work stream once', async () => {
    const both = gate();
    let waiting = 0;
    const held = storeWith(env.store, {
      appendToStreams: async (appends) => {
        // Both replicas' first batches reach the store before either commits.
        if (isScheduling(appends) && waiting < 2) {
          waiting++;
          if (waiting === 2) both.open();
          await both.wait();
        }
        return env.store.appendToStreams(appends);
      },
    });
    await terminate(env.store, 100);
    const a = await start(held, planner(), 'replica-a');
    const b = await start(held, planner(), 'replica-b');
    await eventually(() => a.openWork().size === 100 && b.openWork().size === 100);
    const counts = await scheduledCounts(env.store);
    expect(counts.size).toBe(100);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    expect(a.failure ?? b.failure).toBeUndefined();
  });
});

describe('WorkScheduleBatches: batches in flight together settle in order (issue 15 item 6)', () => {
  const append = (stream: string): StreamAppend => ({ streamName: stream, events: [{ type: 'WorkScheduled', data: {} }], expectedRevision: 'no_stream' });
  const committed = (appends: readonly StreamAppend[]) => appends.map(() => ({ ok: true as const, result: { nextExpectedRevision: 0n, position: { commit: 1n, prepare: 1n } } }));

  it('a later batch that committed counts as scheduled only after the earlier one, and not at all when that one failed', async () => {
    const first = gate();
    const calls: string[] = [];
    const batches = new WorkScheduleBatches({
      appendToStreams: async (appends) => {
        calls.push(appends[0]!.streamName);
        if (appends[0]!.streamName === 'pm_x-a') {
          await first.wait();
          throw new EventStoreUnavailableError('the first batch failed');
        }
        return committed(appends);
      },
    }, 1);
    const settled: string[] = [];
    const a = batches.add([append('pm_x-a')]).then(() => settled.push('a ok'), () => settled.push('a failed'));
    const b = batches.add([append('pm_x-b')]).then(() => settled.push('b ok'), () => settled.push('b failed'));
    // Both batches are in the store's hands; b's committed already, a's waits.
    await eventually(() => calls.length === 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toEqual([]);
    first.open();
    await Promise.all([a, b]);
    expect(settled).toEqual(['a failed', 'b failed']);
    // Nothing is taken after a failure: the runner stops (readiness) and a restart schedules the rest.
    await expect(batches.add([append('pm_x-c')])).rejects.toBeInstanceOf(EventStoreUnavailableError);
  });
});
