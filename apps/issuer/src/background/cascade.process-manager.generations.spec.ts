import { randomBytes } from 'node:crypto';
import { comparePositions, type JsonObject, type RecordedEvent } from '@mission/event-store';
import { verifyHashChain } from '@mission/es-kit';
import { activeChildCount, missionExists, missionIdFromBytes, MissionNotFoundError, missionStreamName } from '@mission/issuer-domain';
import { forEachBounded } from './bounded-parallel.js';
import { missionCascadeManager, openChildren } from './cascade.process-manager.js';
import { appendDecided, cascadedEvents, entrySet, eventsOf, eventually, T0, workTypes } from '../testing/child-missions.js';
import { useChildrenBackground } from '../testing/children-background.js';

/** How the cascade reads: the parent once, the next generation in process over the open children it just folded, work planned per transition, and 1,000 children. */
describe('mission_cascade: reading the parent once and the next generation (spec child-mission-delegation 3.2)', () => {
  const { env, clock, missions, backgroundWork, threeGenerations } = useChildrenBackground();

  it('reads the parent once: its stored state and the attached children not yet detached, in attachment order', async () => {
    const root = await missions.root(entrySet({ max_children: 3, max_child_depth: 1 }));
    const [first, second, third] = [await missions.child(root, entrySet()), await missions.child(root, entrySet()), await missions.child(root, entrySet())];
    await missions.mission(root.id, { type: 'DetachChild', childMissionId: second!.id, state: 'completed', now: clock.now() });
    expect(await openChildren(env.store, root.id)).toEqual({ state: 'active', terminalAt: undefined, open: [first!.id, third!.id] });
    await missions.lifecycle(root.id, 'suspend');
    await missions.lifecycle(root.id, 'revoke');
    const state = await missions.state(root.id);
    const viaDecider = missionExists(state) ? [...state.children].filter(([, child]) => !child.terminal).map(([id]) => id) : [];
    const revokedAt = new Date(String((await eventsOf(env.store, missionStreamName(root.id))).find((event) => event.type === 'MissionRevoked')!.data['occurred_at']));
    expect(await openChildren(env.store, root.id)).toEqual({ state: 'revoked', terminalAt: revokedAt, open: viaDecider });
    expect(missionExists(state) && state.terminalAt).toEqual(revokedAt);
    await expect(openChildren(env.store, missionIdFromBytes(randomBytes(16)))).rejects.toBeInstanceOf(MissionNotFoundError);
  });

  it('spec 3.2: the next generation is cascaded in process at once; a failed continuation is done by the child’s own work item', async () => {
    const tree = await threeGenerations();
    const [a1, a2] = tree.grandchildren;
    let failOnce = true;
    const flaky = Object.create(env.store, {
      appendToStreams: {
        value: (appends: Array<{ streamName: string }>) => {
          if (failOnce && appends.some((append) => append.streamName === missionStreamName(a1!.id))) {
            failOnce = false;
            return Promise.reject(new Error('store went away'));
          }
          return env.store.appendToStreams(appends as never);
        },
      },
    }) as typeof env.store;
    const manager = missionCascadeManager(flaky, clock.now);
    const perform = (missionId: string) => manager.perform({ key: missionId, payload: { mission_id: missionId }, attempt: 1 }, new AbortController().signal);
    await missions.lifecycle(tree.root.id, 'revoke');
    await perform(tree.root.id);
    // b's children were cascaded by the continuation, without b's work item; a's continuation failed.
    await eventually(async () => (await cascadedEvents(env.store, tree.grandchildren[3]!.id)).length === 1);
    expect(await cascadedEvents(env.store, a1!.id)).toEqual([]);
    expect(await cascadedEvents(env.store, a2!.id)).toEqual([]);
    await perform(tree.b.id); // finds nothing left
    await perform(tree.a.id); // does what the continuation could not
    for (const node of tree.descendants) expect(await cascadedEvents(env.store, node.id)).toHaveLength(1);
  });

  it('ADR 0050 / 0082: the trace of the revoking request reaches every generation, the in-process continuations included', async () => {
    const tree = await threeGenerations();
    const manager = missionCascadeManager(env.store, clock.now);
    const trace = { requestId: 'req-revoke-7', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
    await missions.lifecycle(tree.root.id, 'revoke');
    await manager.perform({ key: tree.root.id, payload: { mission_id: tree.root.id }, attempt: 1, trace }, new AbortController().signal);
    // The grandchildren are cascaded by the continuations of a and b, not by a work item of theirs.
    await eventually(async () => (await Promise.all(tree.descendants.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length === 1));
    for (const node of tree.descendants) {
      expect((await cascadedEvents(env.store, node.id))[0]!.metadata).toMatchObject({ request_id: 'req-revoke-7', trace_id: trace.traceId, span_id: trace.spanId, trace_flags: 1 });
    }
  });

  it('the next generation reuses the open children the cascade just folded, only while the child’s stream is unchanged', async () => {
    const tree = await threeGenerations();
    const [a1, a2, b1, b2] = tree.grandchildren;
    const reads: string[] = [];
    const counting = Object.create(env.store, {
      readStream: { value: (streamName: string, options?: object) => (reads.push(streamName), env.store.readStream(streamName, options)) },
    }) as typeof env.store;
    const manager = missionCascadeManager(counting, clock.now, { continueInProcess: false });
    const perform = (missionId: string) => manager.perform({ key: missionId, payload: { mission_id: missionId }, attempt: 1 }, new AbortController().signal);
    await missions.lifecycle(tree.root.id, 'revoke');
    await perform(tree.root.id);
    // a is unchanged since its MissionCascaded: its work item does not read its stream again.
    reads.length = 0;
    await perform(tree.a.id);
    expect(reads).not.toContain(missionStreamName(tree.a.id));
    expect((await cascadedEvents(env.store, a1!.id)).length + (await cascadedEvents(env.store, a2!.id)).length).toBe(2);
    // b changed afterwards (b1 detached): the memo is not trusted, b's stream is read, b1 is left alone.
    await missions.mission(tree.b.id, { type: 'DetachChild', childMissionId: b1!.id, state: 'completed', now: clock.now() });
    reads.length = 0;
    await perform(tree.b.id);
    expect(reads).toContain(missionStreamName(tree.b.id));
    expect(await cascadedEvents(env.store, b1!.id)).toEqual([]);
    expect(await cascadedEvents(env.store, b2!.id)).toHaveLength(1);
  });

  it('plans one work item per terminal transition with open children, and nothing otherwise', async () => {
    const manager = missionCascadeManager(env.store, clock.now);
    const event = (type: string, data: JsonObject): RecordedEvent => ({
      streamName: 'mission-x', revision: 1n, position: { commit: 1n, prepare: 1n }, id: 'evt-1', type, data, metadata: { correlation_id: 'corr-9' }, created: new Date(),
    });
    const base = { mission_id: 'msn_x', version: 2, occurred_at: T0.toISOString() };
    expect(manager.plan(event('MissionRevoked', { ...base, state: 'revoked', open_children: 3 }))).toEqual([
      { key: 'msn_x', dueAt: T0, payload: { mission_id: 'msn_x', trigger_event_id: 'evt-1', correlation_id: 'corr-9' } },
    ]);
    // A later terminal transition type (e.g. expansion's `superseded`) cascades by its state alone.
    expect(manager.plan(event('MissionSuperseded', { ...base, state: 'superseded', open_children: 1 }))).toHaveLength(1);
    expect(manager.plan(event('MissionRevoked', { ...base, state: 'revoked' }))).toEqual([]);
    expect(manager.plan(event('MissionSuspended', { ...base, state: 'suspended', open_children: 1 }))).toEqual([]);
    expect(manager.plan(event('ChildMissionDetached', { mission_id: 'msn_x', child_mission_id: 'msn_y', state: 'revoked', occurred_at: T0.toISOString() }))).toEqual([]);
  });

  it('spec 3.2 at scale: a root with 1,000 children cascades completely', async () => {
    const root = await missions.root(entrySet({ max_child_depth: 1 }));
    const children = Array.from({ length: 1000 }, () => missions.childNode(root, entrySet()));
    await appendDecided(env.store, missionStreamName(root.id), children.map((child) => missions.attachCommand(root, child)), missions.context());
    await forEachBounded(children, 64, (child) => missions.createChildStream(root, child));
    expect((await verifyHashChain(env.store, missionStreamName(root.id))).ok).toBe(true);
    const rootState = await missions.state(root.id);
    expect(missionExists(rootState) && activeChildCount(rootState, 0)).toBe(1000);

    // As in the service: the three runners of ChildrenBackgroundWork, caught up before the revocation.
    const work = backgroundWork();
    await work.onModuleInit();
    try {
      await eventually(async () => {
        // Each runner's head is the last event of its trigger filter (child_grant_lapse reads only attachments).
        const head = (await env.store.headPosition({ streamCategories: ['mission'] }))!;
        const attachments = (await env.store.headPosition({ streamCategories: ['mission'], eventTypes: ['ChildMissionAttached'] }))!;
        const heads = { mission_cascade: head, child_slot_release: head, child_grant_lapse: attachments };
        const saved = await Promise.all(Object.entries(heads).map(async ([name, last]) => [await env.store.checkpoints.load(`pm_${name}_triggers`), last] as const));
        return saved.every(([position, last]) => position !== undefined && comparePositions(position, last) >= 0);
      }, 60_000);
      const started = performance.now();
      await missions.lifecycle(root.id, 'revoke');
      await eventually(async () => (await workTypes(env.store, 'mission_cascade', root.id)).includes('WorkCompleted'), 120_000, 5);
      const elapsedMs = performance.now() - started;
      console.log(`cascade of 1,000 children: ${elapsedMs.toFixed(0)} ms from the root's revocation to the completed work item`);
    } finally {
      await work.onApplicationShutdown();
    }

    const states = await Promise.all(children.map(async (child) => (await missions.state(child.id)).lifecycle));
    expect(states.filter((state) => state === 'cascaded')).toHaveLength(1000);
  }, 180_000);
});
