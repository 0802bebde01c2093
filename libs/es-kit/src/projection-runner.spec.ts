import { comparePositions, type Position, type RecordedEvent } from '@mission/event-store';
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

/** A model that keeps its position with its rows (ADR 0086): `storage` is what a crash leaves (written by persist). */
class PositionedView extends StatusView {
  position: Position | undefined;
  constructor(private readonly storage: { saved: Record<string, string>; position?: Position }) {
    super();
    this.statuses = new Map(Object.entries(storage.saved));
    this.position = storage.position;
    this.persist = () => Object.assign(storage, { saved: Object.fromEntries(this.statuses), position: this.position });
  }
  override apply(event: RecordedEvent) {
    super.apply(event);
    this.position = event.position;
  }
  override reset() {
    super.reset();
    this.position = undefined;
    this.storage.position = undefined;
  }
  storedPosition() {
    return this.storage.position;
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

  it('ADR 0086: resumes from the position the projection stores with its model, and writes no checkpoint of its own', async () => {
    const disk: { saved: Record<string, string>; position?: Position } = { saved: {} };
    for (let i = 0; i < 10; i++) await env.store.appendToStream(`mission-${i}`, [{ type: 'Changed', data: { state: 'active' } }]);
    const first = new PositionedView(disk);
    const runner = new ProjectionRunner(env.store, first);
    await runner.start();
    await runner.waitUntilCaughtUp();
    await runner.stop();
    expect([first.applied, Object.keys(disk.saved).length]).toEqual([10, 10]);
    expect(await env.store.checkpoints.load(runner.checkpointName)).toBeUndefined();

    // A store checkpoint, if one existed, is not what a positioned model resumes from.
    await env.store.checkpoints.save(runner.checkpointName, { commit: 1n, prepare: 1n });
    await env.store.appendToStream('mission-new', [{ type: 'Changed', data: { state: 'active' } }]);
    const second = new PositionedView(disk);
    const resumed = new ProjectionRunner(env.store, second);
    await resumed.start();
    await resumed.waitUntilCaughtUp();
    expect([second.applied, second.statuses.size]).toEqual([1, 11]);
    await resumed.stop();
  });

  it('ADR 0086: a stored position ahead of the store (the model of another store) is rebuilt from zero, with a warning', async () => {
    for (let i = 0; i < 3; i++) await env.store.appendToStream(`mission-${i}`, [{ type: 'Changed', data: { state: 'active' } }]);
    const head = (await env.store.headPosition())!;
    const ahead = { commit: head.commit + 100n, prepare: head.prepare + 100n };
    const disk = { saved: { 'mission-elsewhere': 'active' } as Record<string, string>, position: ahead };
    const warnings: object[] = [];
    const view = new PositionedView(disk);
    const runner = new ProjectionRunner(env.store, view, { logger: { error: () => undefined, info: () => undefined, warn: (obj) => warnings.push(obj) } });
    await runner.start();
    await runner.waitUntilCaughtUp();
    expect(view.statuses).toEqual(new Map([['mission-0', 'active'], ['mission-1', 'active'], ['mission-2', 'active']]));
    expect(comparePositions(view.position!, head)).toBe(0);
    expect(warnings).toEqual([expect.objectContaining({ projection: 'status_view' })]);
    await runner.stop();
  });
});
