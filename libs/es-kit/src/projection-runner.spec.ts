import type { RecordedEvent } from '@mission/event-store';
import { ProjectionRunner, type Projection } from './projection-runner.js';
import { eventually, tempStore } from './testing-store.spec-helper.js';

/** Status by id, as the services' status views do; persisted into a plain object to survive restarts. */
class StatusView implements Projection {
  readonly name = 'status_view';
  readonly categories = ['mission'];
  statuses = new Map<string, string>();
  applied = 0;
  constructor(private readonly disk?: { saved: Record<string, string> }) {
    if (disk) this.persist = () => void (disk.saved = Object.fromEntries(this.statuses));
  }
  persist?: () => void;
  apply(event: RecordedEvent) {
    this.applied++;
    this.statuses.set(event.streamName, String(event.data['state']));
  }
  reset() {
    this.statuses = new Map();
    if (this.disk) this.disk.saved = {};
  }
}

describe('ProjectionRunner', () => {
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => (env = await tempStore()));
  afterEach(() => env.dispose());

  it('catches up on history, follows live events of its categories only, and reports when caught up', async () => {
    await env.store.appendToStream('mission-a', [{ type: 'Changed', data: { state: 'active' } }]);
    await env.store.appendToStream('other-a', [{ type: 'Changed', data: { state: 'ignored' } }]);
    const view = new StatusView();
    const runner = new ProjectionRunner(env.store, view);
    await runner.start();
    await runner.waitUntilCaughtUp();
    expect(view.statuses).toEqual(new Map([['mission-a', 'active']]));

    await env.store.appendToStream('mission-a', [{ type: 'Changed', data: { state: 'revoked' } }]);
    await eventually(() => view.statuses.get('mission-a') === 'revoked');
    expect(await runner.isCaughtUp()).toBe(true);
    await runner.stop();
  });

  it('issue 15 item 6: a projection naming its event types is handed only those, and is caught up while other types of its streams keep coming', async () => {
    await env.store.appendToStream('mission-a', [{ type: 'Changed', data: { state: 'active' } }]);
    for (let read = 0; read < 5; read++) await env.store.appendToStream('mission-a', [{ type: 'StatusRead', data: { reader: `agent-${read}` } }]);
    const view = Object.assign(new StatusView(), { eventTypes: ['Changed'] });
    const runner = new ProjectionRunner(env.store, view);
    await runner.start();
    await runner.waitUntilCaughtUp();
    expect(view.applied).toBe(1);
    expect(await runner.lagEvents()).toBe(0);

    await env.store.appendToStream('mission-a', [{ type: 'StatusRead', data: { reader: 'agent-9' } }]);
    expect(await runner.isCaughtUp()).toBe(true);
    await env.store.appendToStream('mission-a', [{ type: 'Changed', data: { state: 'revoked' } }]);
    await eventually(() => view.statuses.get('mission-a') === 'revoked');
    expect(view.applied).toBe(2);
    await runner.stop();
  });

  it('reports its lag in events of its categories, capped at the limit, and 0 once caught up', async () => {
    for (const state of ['a', 'b', 'c']) await env.store.appendToStream(`mission-${state}`, [{ type: 'Changed', data: { state } }]);
    await env.store.appendToStream('other-a', [{ type: 'Changed', data: { state: 'ignored' } }]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const view = new StatusView();
    const apply = view.apply.bind(view);
    view.apply = async (event: RecordedEvent) => {
      await gate; // holds the first event, so nothing is applied until the test lets it
      apply(event);
    };
    const runner = new ProjectionRunner(env.store, view);
    await runner.start();
    expect(await runner.lagEvents()).toBe(3);
    expect(await runner.lagEvents(2)).toBe(2);
    release();
    await runner.waitUntilCaughtUp();
    expect(await runner.lagEvents()).toBe(0);
    await runner.stop();
  });

  it('rebuilds from zero to the same model', async () => {
    for (let i = 0; i < 30; i++) await env.store.appendToStream(`mission-${i % 7}`, [{ type: 'Changed', data: { state: `s${i}` } }]);
    const view = new StatusView();
    const runner = new ProjectionRunner(env.store, view);
    await runner.start();
    await runner.waitUntilCaughtUp();
    const before = new Map(view.statuses);
    view.statuses.set('mission-0', 'corrupted');
    await runner.rebuild();
    await runner.waitUntilCaughtUp();
    expect(view.statuses).toEqual(before);
    await runner.stop();
  });

  it('resumes a persisted projection from its checkpoint after a restart instead of replaying everything', async () => {
    const disk = { saved: {} as Record<string, string> };
    for (let i = 0; i < 10; i++) await env.store.appendToStream(`mission-${i}`, [{ type: 'Changed', data: { state: 'active' } }]);
    const first = new StatusView(disk);
    const runner = new ProjectionRunner(env.store, first);
    await runner.start();
    await runner.waitUntilCaughtUp();
    await runner.stop();
    expect(Object.keys(disk.saved)).toHaveLength(10);

    await env.restart();
    await env.store.appendToStream('mission-new', [{ type: 'Changed', data: { state: 'active' } }]);
    const second = new StatusView(disk);
    second.statuses = new Map(Object.entries(disk.saved));
    const resumed = new ProjectionRunner(env.store, second);
    await resumed.start();
    await resumed.waitUntilCaughtUp();
    expect(second.applied).toBe(1);
    expect(second.statuses.size).toBe(11);
    await resumed.stop();
  });

  it('stops at an event it cannot apply and says so instead of skipping it', async () => {
    await env.store.appendToStream('mission-x', [{ type: 'Changed', data: { state: 'active' } }]);
    const errors: unknown[] = [];
    const broken: Projection = { name: 'broken', categories: ['mission'], apply: () => { throw new Error('bad event'); }, reset: () => undefined };
    const runner = new ProjectionRunner(env.store, broken, { logger: { error: (obj) => errors.push(obj), info: () => undefined } });
    await runner.start();
    await eventually(() => errors.length === 1);
    await expect(runner.isCaughtUp()).rejects.toThrow('bad event');
    await runner.stop();
  });
});
