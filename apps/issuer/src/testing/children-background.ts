import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from '@mission/event-store';
import { ProcessManagerRunner, type ProcessManager } from '@mission/es-kit';
import { ChildrenBackgroundWork } from '../background/children-background.js';
import { MissionLineage } from '../lineage/mission-lineage.js';
import { entrySet, Missions, TestClock, type ChildNode, type Node } from './child-missions.js';

/** `useChildrenBackground`: the per-test store, clock, missions and runners of the Child Missions background specs. */

/**
 * A real embedded store in a temp dir, reopenable to simulate a restart — what
 * `openTempEmbeddedStore` (@mission/event-store/testing) does; that entry point is not mapped in this
 * app's tsconfig.spec.json, so the store is opened directly.
 */
export interface TempStore {
  store: EmbeddedEventStore;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

export async function openTempStore(): Promise<TempStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'issuer-children-'));
  const open = () => EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 50 });
  const handle: TempStore = {
    store: await open(),
    async restart() {
      await handle.store.close();
      handle.store = await open();
    },
    async dispose() {
      await handle.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/**
 * What `useChildrenBackground` gives a describe block. The objects are the same for all its tests (destructure them
 * once); each test gets a fresh store behind `env.store` and a clock back at T0.
 */
export interface ChildrenBackgroundHarness {
  readonly env: TempStore;
  readonly clock: TestClock;
  readonly missions: Missions;
  startRunner(manager: ProcessManager, pollMs?: number): Promise<ProcessManagerRunner>;
  stopRunner(runner: ProcessManagerRunner): Promise<void>;
  backgroundWork(checks?: Array<{ name: string; check: () => Promise<{ ok: boolean }> }>): ChildrenBackgroundWork;
  /** Root with 2 children, each with 2 grandchildren; `max_child_depth` 2 at the root, 1 below, none at the leaves (spec 2.4). */
  threeGenerations(): Promise<ThreeGenerations>;
}

export interface ThreeGenerations {
  readonly root: Node;
  readonly a: ChildNode;
  readonly b: ChildNode;
  readonly children: ChildNode[];
  readonly grandchildren: ChildNode[];
  readonly descendants: ChildNode[];
}

/**
 * Call inside a `describe`: each test gets a fresh embedded store in a temp dir, a TestClock and Missions over them;
 * the runners a test starts are stopped and the store removed after it.
 */
export function useChildrenBackground(): ChildrenBackgroundHarness {
  let current: TempStore | undefined;
  const opened = (): TempStore => {
    if (current === undefined) throw new Error('the store is opened in beforeEach: use it inside a test');
    return current;
  };
  const env: TempStore = {
    get store() {
      return opened().store;
    },
    restart: () => opened().restart(),
    dispose: () => opened().dispose(),
  };
  const clock = new TestClock();
  const missions = new Missions(() => env.store, clock);
  const runners: ProcessManagerRunner[] = [];

  const startRunner = async (manager: ProcessManager, pollMs = 10): Promise<ProcessManagerRunner> => {
    const runner = new ProcessManagerRunner(env.store, manager, { clock: clock.now, pollMs });
    runners.push(runner);
    await runner.start();
    return runner;
  };
  const backgroundWork = (checks: Array<{ name: string; check: () => Promise<{ ok: boolean }> }> = []) => {
    const readiness = { register: (check: (typeof checks)[number]) => void checks.push(check) };
    const logger = { child: () => logger, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    return new ChildrenBackgroundWork(env.store, { now: clock.now }, logger as never, readiness as never, new MissionLineage(env.store));
  };
  const stopRunner = async (runner: ProcessManagerRunner): Promise<void> => {
    runners.splice(runners.indexOf(runner), 1);
    await runner.stop();
  };

  beforeEach(async () => {
    current = await openTempStore();
    clock.reset();
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await current?.dispose();
    current = undefined;
  });

  async function threeGenerations(): Promise<ThreeGenerations> {
    const root = await missions.root(entrySet({ max_children: 2, max_child_depth: 2 }));
    const childSet = entrySet({ max_children: 2, max_child_depth: 1 });
    const a = await missions.child(root, childSet);
    const b = await missions.child(root, childSet);
    const a1 = await missions.child(a, entrySet());
    const a2 = await missions.child(a, entrySet());
    const b1 = await missions.child(b, entrySet());
    const b2 = await missions.child(b, entrySet());
    return { root, a, b, children: [a, b], grandchildren: [a1, a2, b1, b2], descendants: [a, b, a1, a2, b1, b2] };
  }

  return { env, clock, missions, startRunner, stopRunner, backgroundWork, threeGenerations };
}
