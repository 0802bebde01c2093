import {
  comparePositions,
  EventStoreUnavailableError,
  type EventData,
  type EventStore,
  type RecordedEvent,
  type StreamAppend,
} from '@mission/event-store';
import { verifyHashChain, type ProcessManager } from '@mission/es-kit';
import { grantStreamName, missionStreamName, ParentNotActiveError } from '@mission/issuer-domain';
import { CASCADE_ACTOR, missionCascadeManager } from './cascade.process-manager.js';
import { childGrantLapseManager } from './child-grant-lapse.process-manager.js';
import { cascadedEvents, domainHead, entrySet, eventsOf, eventually, FAST_RETRY, workTypes } from '../testing/child-missions.js';
import { useChildrenBackground } from '../testing/children-background.js';

/** The cascade on the embedded store: generation order, idempotence, restarts and crashes, children never created (spec 3.2, 4.1; decisions 0020, 0021, ADR 0058). */
describe('mission_cascade (spec child-mission-delegation 3.2 immediate cascade, 3.1 `cascaded`)', () => {
  const { env, clock, missions, startRunner, stopRunner, threeGenerations } = useChildrenBackground();

  it('spec 3.2: revoking the root records `cascaded` on all 6 descendants in generation order, with trigger and previous_state; spec 3.1: a suspended child cascades from suspended', async () => {
    const tree = await threeGenerations();
    const [a1] = tree.grandchildren;
    await missions.lifecycle(tree.b.id, 'suspend');
    await missions.lifecycle(a1!.id, 'suspend');
    const suspended = new Set([tree.b.id, a1!.id]);

    await startRunner(missionCascadeManager(env.store, clock.now, { parallelism: 2 }));
    await missions.lifecycle(tree.root.id, 'revoke', 'done with it');

    await eventually(async () => (await Promise.all(tree.descendants.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length > 0));
    await eventually(async () => (await Promise.all([tree.root, tree.a, tree.b].map((node) => workTypes(env.store, 'mission_cascade', node.id)))).every((types) => types.includes('WorkCompleted')));

    const cascaded = new Map<string, RecordedEvent>();
    for (const node of tree.descendants) {
      const events = await cascadedEvents(env.store, node.id);
      expect(events).toHaveLength(1);
      cascaded.set(node.id, events[0]!);
      const data = events[0]!.data;
      const parentState = node.parentId === tree.root.id ? 'revoked' : 'cascaded';
      expect(data).toMatchObject({
        mission_id: node.id,
        state: 'cascaded',
        previous_state: suspended.has(node.id) ? 'suspended' : 'active',
        trigger: { mission_id: node.parentId, state: parentState },
        reason: `parent mission ${parentState}`,
        actor: CASCADE_ACTOR,
        parent_id: node.parentId,
      });
      // The children that have children of their own carry the count that schedules the next generation.
      expect(data['open_children']).toBe(tree.children.includes(node) ? 2 : undefined);
      expect((await missions.state(node.id)).lifecycle).toBe('cascaded');
    }
    // Generation order: every child's MissionCascaded precedes (globally) its own children's.
    for (const grandchild of tree.grandchildren) {
      expect(comparePositions(cascaded.get(grandchild.parentId)!.position, cascaded.get(grandchild.id)!.position)).toBe(-1);
      // The audit trail: each grandchild's MissionCascaded was caused by its parent's.
      expect(cascaded.get(grandchild.id)!.metadata['causation_id']).toBe(cascaded.get(grandchild.parentId)!.id);
    }
    // One work item per parent with open children; none for the leaves.
    for (const leaf of tree.grandchildren) expect(await workTypes(env.store, 'mission_cascade', leaf.id)).toEqual([]);
    for (const node of [tree.root, ...tree.descendants]) expect((await verifyHashChain(env.store, missionStreamName(node.id))).ok).toBe(true);
  });

  it('spec 3.2: running the cascade again changes nothing (idempotent)', async () => {
    const tree = await threeGenerations();
    const manager = missionCascadeManager(env.store, clock.now);
    await startRunner(manager);
    await missions.lifecycle(tree.root.id, 'revoke');
    await eventually(async () => (await Promise.all(tree.grandchildren.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length === 1));

    const head = await domainHead(env.store);
    for (const node of [tree.root, tree.a, tree.b]) {
      await manager.perform({ key: node.id, payload: { mission_id: node.id }, attempt: 2 }, new AbortController().signal);
    }
    expect(await domainHead(env.store)).toBe(head);
    for (const node of tree.descendants) expect(await cascadedEvents(env.store, node.id)).toHaveLength(1);
  });

  it('spec 3.2: a restart after the first generation finishes the cascade exactly once', async () => {
    const tree = await threeGenerations();
    // This replica "crashes" on every work item but the root's (and before it could continue with the
    // next generation in process), so it stops after the first generation.
    const real = missionCascadeManager(env.store, clock.now, { retry: FAST_RETRY, continueInProcess: false });
    const firstGenerationOnly: ProcessManager = {
      ...real,
      perform: async (work, signal) => {
        if (work.key !== tree.root.id) throw new Error('replica crashed');
        await real.perform(work, signal);
      },
    };
    const first = await startRunner(firstGenerationOnly);
    await missions.lifecycle(tree.root.id, 'revoke');
    await eventually(async () => (await Promise.all(tree.children.map((node) => workTypes(env.store, 'mission_cascade', node.id)))).every((types) => types.includes('WorkAttemptFailed')));
    await stopRunner(first);
    for (const node of tree.children) expect(await cascadedEvents(env.store, node.id)).toHaveLength(1);
    for (const node of tree.grandchildren) expect(await cascadedEvents(env.store, node.id)).toHaveLength(0);

    await env.restart();
    await startRunner(missionCascadeManager(env.store, clock.now, { retry: FAST_RETRY }));
    await eventually(async () => (await Promise.all(tree.children.map((node) => workTypes(env.store, 'mission_cascade', node.id)))).every((types) => types.includes('WorkCompleted')));

    for (const node of tree.descendants) expect(await cascadedEvents(env.store, node.id)).toHaveLength(1);
    for (const node of [tree.root, ...tree.children]) {
      const types = await workTypes(env.store, 'mission_cascade', node.id);
      expect(types.filter((type) => type === 'WorkScheduled')).toHaveLength(1);
      expect(types.filter((type) => type === 'WorkCompleted')).toHaveLength(1);
    }
  });

  it('spec 3.2, issue 15 "Also": a restarted issuer takes back the cascade its previous start had claimed, before that lease runs out (ADR 0058)', async () => {
    const tree = await threeGenerations();
    const real = missionCascadeManager(env.store, clock.now, { retry: FAST_RETRY });
    let attemptStarted!: () => void;
    const started = new Promise<void>((resolve) => (attemptStarted = resolve));
    // The first start claims the root's cascade and is stopped in the middle of it: the claim stays, as after kill -9.
    const dies: ProcessManager = {
      ...real,
      perform: async (_work, signal) => {
        attemptStarted();
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('process gone');
      },
    };
    const first = await startRunner(dies);
    await missions.lifecycle(tree.root.id, 'revoke');
    await started;
    await stopRunner(first);
    const held = await eventsOf(env.store, `pm_mission_cascade-${tree.root.id}`);
    expect(held.map((event) => event.type)).toEqual(['WorkScheduled', 'WorkClaimed']);

    await env.restart();
    await startRunner(missionCascadeManager(env.store, clock.now, { retry: FAST_RETRY }));
    await eventually(async () => (await Promise.all(tree.descendants.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length === 1));
    const [, firstClaim, retaken] = await eventsOf(env.store, `pm_mission_cascade-${tree.root.id}`);
    expect(retaken!.type).toBe('WorkClaimed');
    // Taken at the restart, not after the dead start's lease ran out (the lease is one minute).
    const retakenAt = Date.parse(String(retaken!.data['lease_until'])) - 60_000;
    expect(retakenAt).toBeLessThan(Date.parse(String(firstClaim!.data['lease_until'])));
  });

  it('spec 3.2: a crash in the middle of a work item is retried and finishes exactly once', async () => {
    const root = await missions.root(entrySet({ max_children: 3, max_child_depth: 1 }));
    const children = [await missions.child(root, entrySet()), await missions.child(root, entrySet()), await missions.child(root, entrySet())];
    let cascadeAppends = 0;
    const flaky = Object.create(env.store, {
      appendToStream: {
        value: (stream: string, events: readonly EventData[], options: unknown) => {
          if (events[0]?.type === 'MissionCascaded' && ++cascadeAppends === 2) return Promise.reject(new EventStoreUnavailableError('store went away'));
          return env.store.appendToStream(stream, events, options as never);
        },
      },
      // The cascade appends a batch of children at once (one child per batch with parallelism 1).
      appendToStreams: {
        value: (appends: readonly StreamAppend[]) => {
          if (appends[0]?.events[0]?.type === 'MissionCascaded' && ++cascadeAppends === 2) return Promise.reject(new EventStoreUnavailableError('store went away'));
          return env.store.appendToStreams(appends);
        },
      },
    }) as EventStore;
    await startRunner(missionCascadeManager(flaky, clock.now, { parallelism: 1, retry: FAST_RETRY }));
    await missions.lifecycle(root.id, 'complete');
    await eventually(async () => (await workTypes(env.store, 'mission_cascade', root.id)).includes('WorkCompleted'));

    expect(await workTypes(env.store, 'mission_cascade', root.id)).toEqual(['WorkScheduled', 'WorkClaimed', 'WorkAttemptFailed', 'WorkClaimed', 'WorkCompleted']);
    for (const child of children) {
      const events = await cascadedEvents(env.store, child.id);
      expect(events).toHaveLength(1);
      expect(events[0]!.data['trigger']).toEqual({ mission_id: root.id, state: 'completed' });
    }
  });

  it('spec 4.1 rule 1, 3.2 (decision 0021): an attached child whose own stream was never written (crash between attachment and creation) is cascaded before creation; its creation and grant lapse change nothing', async () => {
    const root = await missions.root(entrySet({ max_children: 2, max_child_depth: 1 }));
    const created = await missions.child(root, entrySet());
    const missing = await missions.child(root, entrySet(), { createStream: false, issueGrant: false });
    const debug: object[] = [];
    const cascade = missionCascadeManager(env.store, clock.now, { logger: { debug: (obj) => debug.push(obj) }, retry: FAST_RETRY });
    await startRunner(cascade);
    await missions.lifecycle(root.id, 'revoke');
    await eventually(async () => (await workTypes(env.store, 'mission_cascade', root.id)).includes('WorkCompleted'));

    expect(await workTypes(env.store, 'mission_cascade', root.id)).toEqual(['WorkScheduled', 'WorkClaimed', 'WorkCompleted']);
    expect(await cascadedEvents(env.store, created.id)).toHaveLength(1);
    const revokedAt = (await eventsOf(env.store, missionStreamName(root.id))).find((event) => event.type === 'MissionRevoked')!.data['occurred_at'];
    const marked = await eventsOf(env.store, missionStreamName(missing.id));
    expect(marked.map((event) => [event.type, event.data])).toEqual([
      ['MissionCascadedBeforeCreation', expect.objectContaining({
        mission_id: missing.id, parent_id: root.id, state: 'cascaded', trigger: { mission_id: root.id, state: 'revoked' }, effective_at: revokedAt, actor: CASCADE_ACTOR,
      })],
    ]);
    expect(debug).toEqual([{ parent_mission_id: root.id, child_mission_id: missing.id }]);
    expect((await verifyHashChain(env.store, missionStreamName(missing.id))).ok).toBe(true);

    // The creation that "crashed" resumes late: refused, nothing under the id becomes active.
    await expect(missions.createChildStream(root, missing)).rejects.toBeInstanceOf(ParentNotActiveError);
    // The grant lapse (no grant was ever issued) finds the child cascaded and leaves it; a re-run cascade decides nothing.
    const head = await domainHead(env.store);
    await childGrantLapseManager(env.store, clock.now).perform({ key: missing.id, payload: { child_mission_id: missing.id, parent_mission_id: root.id, grant_id: missing.grantId }, attempt: 1 }, new AbortController().signal);
    await cascade.perform({ key: root.id, payload: { mission_id: root.id }, attempt: 2 }, new AbortController().signal);
    expect((await eventsOf(env.store, missionStreamName(missing.id))).map((event) => event.type)).toEqual(['MissionCascadedBeforeCreation']);
    expect(await eventsOf(env.store, grantStreamName(missing.grantId))).toEqual([]);
    expect(await domainHead(env.store)).toBe(head);
  });
});
