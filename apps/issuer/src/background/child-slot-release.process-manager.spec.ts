import type { EventStore, JsonObject, RecordedEvent } from '@mission/event-store';
import { verifyHashChain } from '@mission/es-kit';
import { activeChildCount, FanOutExceededError, missionExists, missionStreamName } from '@mission/issuer-domain';
import { childSlotReleaseManager } from './child-slot-release.process-manager.js';
import { MissionLineage } from '../lineage/mission-lineage.js';
import { domainHead, entrySet, eventsOf, eventually, FAST_RETRY, T0, type ChildNode } from '../testing/child-missions.js';
import { useChildrenBackground } from '../testing/children-background.js';

describe('child_slot_release (spec child-mission-delegation 2.4 rule 2: a terminal child frees its max_children slot)', () => {
  const { env, clock, missions, startRunner } = useChildrenBackground();

  it('spec 2.4 rule 2, spec 8 max_children: after a child completes, a new attach succeeds', async () => {
    const root = await missions.root(entrySet({ max_children: 2, max_child_depth: 1 }));
    const first = await missions.child(root, entrySet());
    await missions.child(root, entrySet());
    await expect(missions.child(root, entrySet())).rejects.toBeInstanceOf(FanOutExceededError);

    const manager = childSlotReleaseManager(new MissionLineage(env.store), clock.now, FAST_RETRY);
    await startRunner(manager);
    await missions.lifecycle(first.id, 'complete');
    await eventually(async () => (await eventsOf(env.store, missionStreamName(root.id))).some((event) => event.type === 'ChildMissionDetached'));

    const detached = (await eventsOf(env.store, missionStreamName(root.id))).filter((event) => event.type === 'ChildMissionDetached');
    expect(detached.map((event) => event.data)).toEqual([expect.objectContaining({ mission_id: root.id, child_mission_id: first.id, state: 'completed' })]);
    const third = await missions.child(root, entrySet());
    const state = await missions.state(root.id);
    expect(missionExists(state) && state.children.get(third.id)).toEqual({ parentEntryIndexes: [0], terminal: false });
    expect(missionExists(state) && activeChildCount(state, 0)).toBe(2);

    // Idempotent: the same work again decides nothing.
    const head = await domainHead(env.store);
    await manager.perform({ key: first.id, payload: { parent_mission_id: root.id, child_mission_id: first.id, state: 'completed' }, attempt: 2 }, new AbortController().signal);
    expect(await domainHead(env.store)).toBe(head);
    expect((await verifyHashChain(env.store, missionStreamName(root.id))).ok).toBe(true);
  });

  it('ADR 0080: with the lineage, each release reads only what the parent stream got since, and still sees a concurrent attachment', async () => {
    const root = await missions.root(entrySet({ max_child_depth: 1 }));
    const children: ChildNode[] = [];
    for (let i = 0; i < 30; i++) children.push(await missions.child(root, entrySet(), { issueGrant: false }));
    // Events of the parent's stream handed out by reads through the lineage's store.
    let parentEventsRead = 0;
    const counting: EventStore = Object.create(env.store, {
      readStream: {
        value: (stream: string, options?: Parameters<EventStore['readStream']>[1]) => {
          const events = env.store.readStream(stream, options);
          if (stream !== missionStreamName(root.id)) return events;
          return (async function* () {
            for await (const event of events) {
              parentEventsRead += 1;
              yield event;
            }
          })();
        },
      },
    });
    const manager = childSlotReleaseManager(new MissionLineage(counting), clock.now, FAST_RETRY);
    const release = (child: ChildNode) =>
      manager.perform({ key: child.id, payload: { parent_mission_id: root.id, child_mission_id: child.id, state: 'completed' }, attempt: 1 }, new AbortController().signal);

    await release(children[0]!);
    expect(parentEventsRead).toBe(31); // the first release folds the parent once: MissionCreated and 30 attachments
    parentEventsRead = 0;
    // Another writer attaches a child between two releases: the next release catches up with it (one event).
    const late = await missions.child(root, entrySet(), { issueGrant: false });
    for (const child of children.slice(1)) await release(child);
    expect(parentEventsRead).toBe(1);

    const parent = await missions.state(root.id);
    expect(missionExists(parent) && [...parent.openChildren.keys()]).toEqual([late.id]);
    expect(missionExists(parent) && [...parent.children.values()].filter((child) => child.terminal)).toHaveLength(30);
    expect((await verifyHashChain(env.store, missionStreamName(root.id))).ok).toBe(true);
  });

  it('plans nothing for MissionCascaded (the parent is terminal already) or for a root mission', async () => {
    const manager = childSlotReleaseManager(new MissionLineage(env.store), clock.now);
    const event = (type: string, data: JsonObject): RecordedEvent => ({
      streamName: 'mission-x', revision: 1n, position: { commit: 1n, prepare: 1n }, id: 'evt-1', type, data, metadata: {}, created: new Date(),
    });
    const base = { mission_id: 'msn_x', version: 2, occurred_at: T0.toISOString() };
    expect(manager.plan(event('MissionExpired', { ...base, state: 'expired', parent_id: 'msn_p' }))).toEqual([
      { key: 'msn_x', dueAt: T0, payload: { parent_mission_id: 'msn_p', child_mission_id: 'msn_x', state: 'expired', trigger_event_id: 'evt-1' } },
    ]);
    expect(manager.plan(event('MissionCascaded', { ...base, state: 'cascaded', parent_id: 'msn_p' }))).toEqual([]);
    expect(manager.plan(event('MissionRevoked', { ...base, state: 'revoked' }))).toEqual([]);
    expect(manager.plan(event('MissionSuspended', { ...base, state: 'suspended', parent_id: 'msn_p' }))).toEqual([]);
  });
});
