import { EventStoreUnavailableError, type RecordedEvent, type StreamAppend } from '@mission/event-store';
import { backoffDelayMs } from './backoff.js';
import type { ProcessManager, WorkItem } from './process-manager.js';
import { ProcessManagerRunner } from './process-manager-runner.js';
import { eventually, sleep, tempStore } from './testing-store.spec-helper.js';

/** Revokes tokens of a terminated mission: one unit of work per MissionTerminated event. */
function revoker(perform: (work: WorkItem, signal: AbortSignal) => Promise<void>, retry: ProcessManager['retry'] = {}, delayMs = 0): ProcessManager {
  return {
    name: 'revoker',
    triggers: ['mission'],
    plan: (event: RecordedEvent) =>
      event.type === 'MissionTerminated'
        ? [{ key: `${event.streamName}.${event.id}`, dueAt: new Date(event.created.getTime() + delayMs), payload: { mission: event.streamName } }]
        : [],
    perform,
    retry: { initialDelayMs: 10, maxDelayMs: 50, leaseMs: 2000, ...retry },
  };
}

async function workTypes(store: Awaited<ReturnType<typeof tempStore>>['store']): Promise<string[]> {
  const types: string[] = [];
  for await (const event of store.readAll({ filter: { streamCategories: ['pm_revoker'] } })) types.push(event.type);
  return types;
}

describe('ProcessManagerRunner', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  const runners: ProcessManagerRunner[] = [];
  const run = async (manager: ProcessManager, replicaId?: string) => {
    const runner = new ProcessManagerRunner(env.store, manager, { pollMs: 10, ...(replicaId ? { replicaId } : {}) });
    runners.push(runner);
    await runner.start();
    return runner;
  };
  beforeEach(async () => (env = await tempStore()));
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await env.dispose();
  });

  it('turns a trigger event into work that is performed once and recorded', async () => {
    const done: string[] = [];
    await run(revoker(async (work) => void done.push(String(work.payload['mission']))));
    await env.store.appendToStream('mission-a', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).includes('WorkCompleted'));
    expect(done).toEqual(['mission-a']);
    expect(await workTypes(env.store)).toEqual(['WorkScheduled', 'WorkClaimed', 'WorkCompleted']);
  });

  it('ADR 0050 / 0082: perform is handed the trace of the request that caused the work, and none for work no request caused', async () => {
    const traces = new Map<string, WorkItem['trace']>();
    await run(revoker(async (work) => void traces.set(String(work.payload['mission']), work.trace)));
    const trace = { request_id: 'req-term-1', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', trace_flags: 1 };
    await env.store.appendToStream('mission-t', [{ type: 'MissionTerminated', data: {}, metadata: trace }]);
    await env.store.appendToStream('mission-u', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(() => traces.size === 2);
    expect(traces.get('mission-t')).toEqual({ requestId: 'req-term-1', traceId: trace.trace_id, spanId: trace.span_id, traceFlags: 1 });
    expect(traces.get('mission-u')).toBeUndefined();
  });

  it('retries a failing action with back-off until it succeeds, recording every attempt', async () => {
    let calls = 0;
    await run(revoker(async () => {
      if (++calls < 3) throw new Error(`resource answered 500 (call ${calls})`);
    }));
    await env.store.appendToStream('mission-b', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).includes('WorkCompleted'));
    expect(await workTypes(env.store)).toEqual([
      'WorkScheduled', 'WorkClaimed', 'WorkAttemptFailed', 'WorkClaimed', 'WorkAttemptFailed', 'WorkClaimed', 'WorkCompleted',
    ]);
  });

  it('abandons work after the bounded number of attempts', async () => {
    let calls = 0;
    await run(revoker(async () => { calls++; throw new Error('never works'); }, { maxAttempts: 3 }));
    await env.store.appendToStream('mission-c', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).includes('WorkAbandoned'));
    await sleep(100);
    expect(calls).toBe(3);
  });

  it('computes exponential back-off with jitter, capped', () => {
    const policy = { maxAttempts: 8, initialDelayMs: 100, maxDelayMs: 1000, leaseMs: 1000 };
    expect(backoffDelayMs(1, policy, () => 0)).toBe(50);
    expect(backoffDelayMs(1, policy, () => 1)).toBe(100);
    expect(backoffDelayMs(3, policy, () => 1)).toBe(400);
    expect(backoffDelayMs(10, policy, () => 1)).toBe(1000);
  });

  it('keeps scheduled work across a restart and performs it when due', async () => {
    const done: string[] = [];
    const manager = revoker(async (work) => void done.push(work.key), {}, 400);
    // The first runner's clock stands still before the trigger, so the work is never due for it, however slow the machine.
    const frozen = new Date();
    const first = new ProcessManagerRunner(env.store, manager, { pollMs: 10, clock: () => frozen });
    runners.push(first);
    await first.start();
    await env.store.appendToStream('mission-d', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).includes('WorkScheduled'));
    await first.stop();
    runners.splice(runners.indexOf(first), 1);
    expect(done).toEqual([]);

    await env.restart();
    await run(manager);
    await eventually(() => done.length === 1);
    await sleep(100);
    expect(done).toHaveLength(1);
    expect((await workTypes(env.store)).filter((type) => type === 'WorkScheduled')).toHaveLength(1);
  });

  it('takes over work whose claiming replica died, once its lease runs out', async () => {
    const performedBy: string[] = [];
    // Replica A claims and then hangs forever, as a crashed process would.
    await run(revoker(async () => { performedBy.push('a'); await new Promise(() => undefined); }, { leaseMs: 300 }), 'replica-a');
    await env.store.appendToStream('mission-e', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(() => performedBy.length === 1);
    await run(revoker(async () => void performedBy.push('b'), { leaseMs: 300 }), 'replica-b');
    await eventually(async () => (await workTypes(env.store)).includes('WorkCompleted'));
    expect(performedBy).toEqual(['a', 'b']);
    runners.splice(0, 1); // replica A never returns from perform; do not wait for it
  });

  it('survives a store failure while recording a result: the lease runs out and the work is done again', async () => {
    let failNextCompletion = true;
    const flaky = Object.create(env.store, {
      appendToStream: {
        value: (stream: string, events: Array<{ type: string }>, options: unknown) => {
          if (events[0]?.type === 'WorkCompleted' && failNextCompletion) {
            failNextCompletion = false;
            return Promise.reject(new EventStoreUnavailableError('store went away'));
          }
          return env.store.appendToStream(stream, events as never, options as never);
        },
      },
    }) as typeof env.store;
    const errors: unknown[] = [];
    let calls = 0;
    const runner = new ProcessManagerRunner(flaky, revoker(async () => void calls++, { leaseMs: 200 }), {
      pollMs: 10,
      logger: { info: () => undefined, warn: () => undefined, error: (obj) => errors.push(obj) },
    });
    runners.push(runner);
    await runner.start();
    await env.store.appendToStream('mission-f', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).includes('WorkCompleted'));
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    expect(await workTypes(env.store)).toEqual(['WorkScheduled', 'WorkClaimed', 'WorkClaimed', 'WorkCompleted']);
  });

  it('schedules the work of many triggers at once, each once, and its checkpoint reaches the last trigger', async () => {
    const done = new Set<string>();
    const runner = await run(revoker(async (work) => void done.add(String(work.payload['mission']))));
    const missions = Array.from({ length: 150 }, (_, i) => `mission-many${i}`);
    await env.store.appendToStreams(missions.map((stream) => ({ streamName: stream, events: [{ type: 'MissionTerminated', data: {} }] })));
    await eventually(() => done.size === missions.length, 10_000);
    const scheduled = (await workTypes(env.store)).filter((type) => type === 'WorkScheduled');
    expect(scheduled).toHaveLength(missions.length);
    await runner.stop();
    runners.splice(runners.indexOf(runner), 1);
    // The checkpoint reached the last trigger: a restarted runner schedules nothing again.
    const last = await env.store.headPosition({ streamCategories: ['mission'] });
    expect((await env.store.checkpoints.load('pm_revoker_triggers'))?.commit).toBe(last?.commit);
  });

  it('reports a failure to schedule work at once (readiness), without waiting for another trigger', async () => {
    const broken = Object.create(env.store, {
      appendToStreams: {
        value: (appends: StreamAppend[]) =>
          appends[0]?.events[0]?.type === 'WorkScheduled' ? Promise.reject(new EventStoreUnavailableError('store went away')) : env.store.appendToStreams(appends),
      },
    }) as typeof env.store;
    const errors: unknown[] = [];
    const runner = new ProcessManagerRunner(broken, revoker(async () => undefined), {
      pollMs: 10,
      logger: { info: () => undefined, warn: () => undefined, error: (obj) => errors.push(obj) },
    });
    runners.push(runner);
    await runner.start();
    await env.store.appendToStream('mission-g', [{ type: 'MissionTerminated', data: {} }]);
    await eventually(() => runner.failure !== undefined);
    expect(runner.failure).toBeInstanceOf(EventStoreUnavailableError);
    expect(errors).toHaveLength(1);
    expect(await env.store.checkpoints.load('pm_revoker_triggers')).toBeUndefined();
  });

  it('performs each unit of work exactly once with two replicas on one store', async () => {
    const performed = new Map<string, number>();
    const perform = async (work: WorkItem) => {
      performed.set(work.key, (performed.get(work.key) ?? 0) + 1);
      await sleep(5);
    };
    await run(revoker(perform), 'replica-1');
    await run(revoker(perform), 'replica-2');
    for (let i = 0; i < 20; i++) await env.store.appendToStream(`mission-m${i}`, [{ type: 'MissionTerminated', data: {} }]);
    await eventually(async () => (await workTypes(env.store)).filter((type) => type === 'WorkCompleted').length === 20);
    await sleep(100);
    expect(performed.size).toBe(20);
    expect([...performed.values()].every((count) => count === 1)).toBe(true);
  });
});
