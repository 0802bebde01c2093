import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparePositions, EmbeddedEventStore, EventStoreUnavailableError, type EventData, type EventStore, type JsonObject, type RecordedEvent, type StreamAppend } from '@mission/event-store';
import {
  aggregateStream,
  eventHash,
  genesisHash,
  handleCommand,
  metadataFor,
  PREV_HASH,
  ProcessManagerRunner,
  verifyHashChain,
  type AggregateState,
  type CommandContext,
  type ProcessManager,
} from '@mission/es-kit';
import {
  activeChildCount,
  authorityHash,
  FanOutExceededError,
  grantDecider,
  grantIdFromBytes,
  GrantRevokedError,
  grantStreamName,
  grantTokenFromBytes,
  grantTokenHash,
  missionDecider,
  missionExists,
  missionIdFromBytes,
  MissionNotFoundError,
  missionStreamName,
  ParentNotActiveError,
  type AttachChild,
  type AuthoritySet,
  type ChildEvidence,
  type ChildrenPolicy,
  type MissionCommand,
  type MissionEvent,
  type MissionState,
} from '@mission/issuer-domain';
import { forEachBounded } from './bounded-parallel.js';
import { CASCADE_ACTOR, missionCascadeManager, openChildren } from './cascade.process-manager.js';
import { childGrantLapseManager, GRANT_LAPSE_ACTOR, GRANT_LAPSE_REASON } from './child-grant-lapse.process-manager.js';
import { childSlotReleaseManager } from './child-slot-release.process-manager.js';
import { ChildrenBackgroundWork } from './children-background.js';
import { MissionLineage } from '../lineage/mission-lineage.js';

/* ---------------------------------------------------------------- fixtures */

/**
 * A real embedded store in a temp dir, reopenable to simulate a restart — what
 * `openTempEmbeddedStore` (@mission/event-store/testing) does; that entry point is not mapped in this
 * app's tsconfig.spec.json, so the store is opened directly.
 */
interface TempStore {
  store: EmbeddedEventStore;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

async function openTempStore(): Promise<TempStore> {
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

const ISSUER = 'https://issuer.example';
const T0 = new Date('2026-11-22T10:00:00.000Z');
const EXPIRES_AT = new Date(T0.getTime() + 8 * 3600_000);
const CLIENT = { id: 'agent-a', role: 'client' };
const APPROVER = { id: 'alice', role: 'person' };
const GRANT_TTL_MS = 60_000;
const FAST_RETRY = { initialDelayMs: 10, maxDelayMs: 20 };

/** Domain time: starts at T0, runs with the wall clock, and can be moved forward. */
class TestClock {
  private readonly startedAt = Date.now();
  private offset = 0;
  readonly now = (): Date => new Date(T0.getTime() + (Date.now() - this.startedAt) + this.offset);
  advance(ms: number): void {
    this.offset += ms;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(everyMs);
  }
}

function entrySet(children?: ChildrenPolicy): AuthoritySet {
  return [
    {
      type: 'mission_resource_access',
      resource: 'https://erp.example.com/invoices',
      actions: ['invoices.read'],
      ...(children ? { delegation: { children } } : {}),
    },
  ];
}

/** The parent grant's key, as a creation grant records it (spec 2.5 rule 8); the tests redeem with other keys. */
const PARENT_GRANT_JKT = 'A'.repeat(43);

interface Node {
  readonly id: string;
  readonly set: AuthoritySet;
  readonly hash: string;
  /** 0 for a root. */
  readonly depth: number;
}

interface ChildNode extends Node {
  readonly parentId: string;
  readonly clientId: string;
  readonly grantId: string;
  readonly grantToken: string;
}

interface ChildOptions {
  /** Write the child's own stream (default true); false = a crash between attachment and creation. */
  readonly createStream?: boolean;
  /** Issue the creation grant (default true). */
  readonly issueGrant?: boolean;
}

let childCounter = 0;

class Missions {
  constructor(
    private readonly store: () => EventStore,
    private readonly clock: TestClock,
  ) {}

  context(actor = CLIENT): CommandContext {
    return { correlationId: 'corr-test', causationId: 'req-test', actor, now: this.clock.now() };
  }

  async root(set: AuthoritySet): Promise<Node> {
    const id = missionIdFromBytes(randomBytes(16));
    const hash = authorityHash(ISSUER, set);
    await this.mission(id, {
      type: 'CreateMission', missionId: id, issuer: ISSUER, clientId: 'agent-root', authoritySet: set, authorityHash: hash,
      intent: { goal: 'Reconcile November invoices', resources: ['https://erp.example.com/invoices'], expires_at: EXPIRES_AT.toISOString() },
      expiresAt: EXPIRES_AT, approvedBy: APPROVER, now: this.clock.now(),
    });
    return { id, set, hash, depth: 0 };
  }

  /** AttachChild on the parent, then the child's own stream (a ParentLink), then its creation grant. */
  async child(parent: Node, set: AuthoritySet, options: ChildOptions = {}): Promise<ChildNode> {
    const node = this.childNode(parent, set);
    await this.mission(parent.id, this.attachCommand(parent, node));
    if (options.createStream ?? true) await this.createChildStream(parent, node);
    if (options.issueGrant ?? true) {
      const now = this.clock.now();
      await handleCommand(this.store(), grantStreamName(node.grantId), grantDecider, {
        type: 'IssueChildGrant', grantId: node.grantId, missionId: node.id, parentMissionId: parent.id, clientId: node.clientId,
        grantHash: grantTokenHash(node.grantToken), lineageJkts: [PARENT_GRANT_JKT], expiresAt: new Date(now.getTime() + GRANT_TTL_MS), now,
      }, this.context());
    }
    return node;
  }

  childNode(parent: Node, set: AuthoritySet): ChildNode {
    const grantId = grantIdFromBytes(randomBytes(16));
    return {
      id: missionIdFromBytes(randomBytes(16)), set, hash: authorityHash(ISSUER, set), depth: parent.depth + 1, parentId: parent.id,
      clientId: `child-agent-${++childCounter}`, grantId, grantToken: grantTokenFromBytes(grantId, randomBytes(32)),
    };
  }

  attachCommand(parent: Node, child: ChildNode): AttachChild {
    const now = this.clock.now();
    const evidence: ChildEvidence = {
      evidence_id: `evd_${child.id}`,
      parent: { id: parent.id, issuer: ISSUER, authority_hash: parent.hash },
      child: { id: child.id, issuer: ISSUER, authority_hash: child.hash },
      child_actor: { sub: child.clientId },
      requested_by: CLIENT.id,
      attenuation: { result: 'strict_subset', checks: ['strict_subset'] },
      cascade_mode: 'immediate',
      decision: 'created',
      created_at: now.toISOString(),
    };
    return {
      type: 'AttachChild', childMissionId: child.id, childClientId: child.clientId, parentEntryIndexes: [0], actor: CLIENT, now,
      grantId: child.grantId, grantExpiresAt: new Date(now.getTime() + GRANT_TTL_MS), cascadeMode: 'immediate', evidence,
      child: { authoritySet: child.set, expiresAt: EXPIRES_AT, intentResources: ['https://erp.example.com/invoices'] },
    };
  }

  async createChildStream(parent: Node, child: ChildNode): Promise<void> {
    await this.mission(child.id, {
      type: 'CreateMission', missionId: child.id, issuer: ISSUER, clientId: child.clientId, authoritySet: child.set, authorityHash: child.hash,
      intent: { goal: 'Read one invoice', resources: ['https://erp.example.com/invoices'], expires_at: EXPIRES_AT.toISOString() },
      expiresAt: EXPIRES_AT, approvedBy: CLIENT, now: this.clock.now(),
      parent: { id: parent.id, issuer: ISSUER, authority_hash: parent.hash, depth: child.depth, cascade_mode: 'immediate' },
      parentBounds: { expiresAt: EXPIRES_AT, intentResources: ['https://erp.example.com/invoices'] },
    });
  }

  async mission(id: string, command: MissionCommand, actor = CLIENT) {
    return handleCommand(this.store(), missionStreamName(id), missionDecider, command, this.context(actor), { hashChain: true });
  }

  lifecycle(id: string, operation: 'suspend' | 'revoke' | 'complete', reason = `test ${operation}`) {
    return this.mission(id, { type: 'ChangeMissionLifecycle', operation, actor: CLIENT, reason, now: this.clock.now() });
  }

  async state(id: string): Promise<MissionState> {
    return (await aggregateStream(this.store(), missionStreamName(id), missionDecider)).state;
  }
}

async function eventsOf(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) events.push(event);
  return events;
}

async function cascadedEvents(store: EventStore, missionId: string): Promise<RecordedEvent[]> {
  return (await eventsOf(store, missionStreamName(missionId))).filter((event) => event.type === 'MissionCascaded');
}

async function workTypes(store: EventStore, manager: string, key: string): Promise<string[]> {
  return (await eventsOf(store, `pm_${manager}-${key}`)).map((event) => event.type);
}

/** What the store holds for missions and grants: unchanged means nothing was decided. */
async function domainHead(store: EventStore): Promise<string> {
  const head = await store.headPosition({ streamCategories: ['mission', 'grant'] });
  return head ? `${head.commit}/${head.prepare}` : 'empty';
}

/**
 * Appends commands decided one after the other over a locally folded state, in batches (hash-chained
 * like handleCommand's appends): setting up a parent with many children without re-reading its stream.
 */
async function appendDecided(store: EventStore, stream: string, commands: readonly MissionCommand[], context: CommandContext, batch = 200): Promise<void> {
  let current: AggregateState<MissionState> = await aggregateStream(store, stream, missionDecider);
  let previousHash = current.lastEvent ? eventHash(current.lastEvent) : genesisHash(stream);
  for (let start = 0; start < commands.length; start += batch) {
    let state = current.state;
    let revision = current.revision === 'no_stream' ? 0n : current.revision + 1n;
    const data: EventData[] = [];
    for (const command of commands.slice(start, start + batch)) {
      for (const event of missionDecider.decide(command, state) as MissionEvent[]) {
        state = missionDecider.evolve(state, event);
        const metadata: JsonObject = { ...metadataFor(context), [PREV_HASH]: previousHash };
        const eventData = event.data as unknown as JsonObject;
        previousHash = eventHash({ streamName: stream, revision, type: event.type, data: eventData, metadata });
        revision += 1n;
        data.push({ type: event.type, data: eventData, metadata });
      }
    }
    const append = await store.appendToStream(stream, data, { expectedRevision: current.revision });
    current = { state, revision: append.nextExpectedRevision };
  }
}

/* ---------------------------------------------------------------- tests */

describe('Child Missions background work on the embedded store (spec child-mission-delegation 2.4, 3.1–3.3; DESIGN 2.4)', () => {
  let env: TempStore;
  let clock: TestClock;
  let missions: Missions;
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
    env = await openTempStore();
    clock = new TestClock();
    missions = new Missions(() => env.store, clock);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await env.dispose();
  });

  /** Root with 2 children, each with 2 grandchildren; `max_child_depth` 2 at the root, 1 below, none at the leaves (spec 2.4). */
  async function threeGenerations() {
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

  describe('mission_cascade (spec 3.2 immediate cascade, 3.1 `cascaded`)', () => {
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

  describe('child_slot_release (spec 2.4 rule 2: a terminal child frees its max_children slot)', () => {
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

  describe('child_grant_lapse (DESIGN 2.4: an unredeemed creation grant revokes its child and frees the slot)', () => {
    it('revokes the child of an unredeemed grant and frees its slot, leaves a redeemed one alone, and detaches a child whose stream was never written', async () => {
      const root = await missions.root(entrySet({ max_children: 3, max_child_depth: 1 }));
      const unredeemed = await missions.child(root, entrySet());
      const redeemed = await missions.child(root, entrySet());
      const missing = await missions.child(root, entrySet(), { createStream: false, issueGrant: false });
      const jkt = grantTokenHash('child key');
      await handleCommand(env.store, grantStreamName(redeemed.grantId), grantDecider, {
        type: 'RedeemChildGrant', grantHash: grantTokenHash(redeemed.grantToken), clientId: redeemed.clientId, dpopJkt: jkt, now: clock.now(),
      }, missions.context());

      const lapse = childGrantLapseManager(env.store, clock.now, { retry: FAST_RETRY });
      await startRunner(lapse);
      await startRunner(childSlotReleaseManager(new MissionLineage(env.store), clock.now, FAST_RETRY));
      await sleep(200);
      expect((await missions.state(unredeemed.id)).lifecycle).toBe('active'); // not due before grant_expires_at

      clock.advance(GRANT_TTL_MS + 1000);
      const detachedIds = async () =>
        (await eventsOf(env.store, missionStreamName(root.id))).filter((event) => event.type === 'ChildMissionDetached').map((event) => event.data['child_mission_id']);
      await eventually(async () => (await detachedIds()).length === 2);
      await eventually(async () => (await workTypes(env.store, 'child_grant_lapse', redeemed.id)).includes('WorkCompleted'));

      // The unredeemed child: grant revoked first (a late redemption fails), then the child revoked normally.
      const unredeemedGrant = await eventsOf(env.store, grantStreamName(unredeemed.grantId));
      expect(unredeemedGrant.at(-1)).toMatchObject({ type: 'GrantRevoked', data: { reason: 'child_grant_unredeemed', actor: GRANT_LAPSE_ACTOR } });
      await expect(
        handleCommand(env.store, grantStreamName(unredeemed.grantId), grantDecider, {
          type: 'RedeemChildGrant', grantHash: grantTokenHash(unredeemed.grantToken), clientId: unredeemed.clientId, dpopJkt: jkt, now: clock.now(),
        }, missions.context()),
      ).rejects.toBeInstanceOf(GrantRevokedError);
      const revoked = (await eventsOf(env.store, missionStreamName(unredeemed.id))).filter((event) => event.type === 'MissionRevoked');
      expect(revoked.map((event) => event.data)).toEqual([
        expect.objectContaining({ state: 'revoked', previous_state: 'active', actor: GRANT_LAPSE_ACTOR, reason: GRANT_LAPSE_REASON, parent_id: root.id }),
      ]);

      // The redeemed child lives on, with its grant.
      expect((await missions.state(redeemed.id)).lifecycle).toBe('active');
      expect((await eventsOf(env.store, grantStreamName(redeemed.grantId))).map((event) => event.type)).not.toContain('GrantRevoked');

      // Slots: the revoked child (through slot release) and the never-created one (directly) are detached.
      expect(new Set(await detachedIds())).toEqual(new Set([unredeemed.id, missing.id]));
      const rootEvents = await eventsOf(env.store, missionStreamName(root.id));
      expect(rootEvents.find((event) => event.type === 'ChildMissionDetached' && event.data['child_mission_id'] === missing.id)?.data['state']).toBe('revoked');
      const rootState = await missions.state(root.id);
      expect(missionExists(rootState) && activeChildCount(rootState, 0)).toBe(1);
      await missions.child(root, entrySet());
      await missions.child(root, entrySet());

      // Idempotent: all three work items again decide nothing.
      await eventually(async () => (await Promise.all([unredeemed, missing].map((node) => workTypes(env.store, 'child_grant_lapse', node.id)))).every((types) => types.includes('WorkCompleted')));
      const head = await domainHead(env.store);
      for (const child of [unredeemed, redeemed, missing]) {
        await lapse.perform({ key: child.id, payload: { child_mission_id: child.id, parent_mission_id: root.id, grant_id: child.grantId }, attempt: 2 }, new AbortController().signal);
      }
      expect(await domainHead(env.store)).toBe(head);
      for (const id of [root.id, unredeemed.id]) expect((await verifyHashChain(env.store, missionStreamName(id))).ok).toBe(true);
    });
  });

  describe('ChildrenBackgroundWork (Nest provider)', () => {
    it('registers a readiness check per process manager, starts them with the module and stops them at shutdown', async () => {
      const checks: Array<{ name: string; check: () => Promise<{ ok: boolean }> }> = [];
      const work = backgroundWork(checks);
      await work.onModuleInit();
      try {
        expect(checks.map((check) => check.name)).toEqual(['process-manager:mission_cascade', 'process-manager:child_slot_release', 'process-manager:child_grant_lapse']);
        for (const check of checks) expect(await check.check()).toEqual({ ok: true });

        const tree = await threeGenerations();
        await missions.lifecycle(tree.root.id, 'revoke');
        await eventually(async () => (await Promise.all(tree.descendants.map((node) => cascadedEvents(env.store, node.id)))).every((events) => events.length === 1));
        await eventually(async () => (await workTypes(env.store, 'mission_cascade', tree.b.id)).includes('WorkCompleted'));
      } finally {
        await work.onApplicationShutdown();
      }
      // The coalesced trigger checkpoints are written at shutdown at the latest.
      const head = (await env.store.headPosition({ streamCategories: ['mission'] }))!;
      expect(await env.store.checkpoints.load('pm_mission_cascade_triggers')).toEqual(head);
    });
  });
});
