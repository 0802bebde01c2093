import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { aggregateStream } from '@mission/es-kit';
import { grantStreamName, missionDecider, missionExists, missionStreamName, type ChildMissionAttachedData } from '@mission/issuer-domain';
import { DpopKey } from '@mission/mission-client';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { ChildrenBackgroundWork } from '../background/children-background.js';
import { CHILD_CREATION_GRANT, obtainChildMission, obtainRootMission, postAs, redeemChild, requestChild, type MissionHolder } from '../testing/mission-flows.js';
import { demoConfigFile, startIssuer } from '../testing/run-issuer.js';
import { CreateChildMissionHandler as ChildCreations } from '../use-cases/create-child-mission/create-child-mission.handler.js';

/*
 * Spec 4.1 rule 1, 3.2 (decision 0021): creation and cascade agree in every interleaving of
 *   A  attach (ChildMissionAttached on the parent's stream, the creation's commit point),
 *   C  create the child's stream (MissionCreated; the creation then re-reads the lineage),
 *   R  revoke the parent,
 *   K  the cascade work for the parent (the process manager),
 * with A before C (one creation request) and R before K (R schedules K). Each order is staged with the
 * creation's hooks (beforeCommit, afterAttach, afterChildCreated) and a gate before the cascade work —
 * never by racing timers. Whatever the order: the child ends `cascaded` (or was never attached), its
 * creation grant is never usable, and no answer is a 5xx.
 */

let dataDir: string;
let service: RunningService;
let store: EventStore;
let creations: ChildCreations;
let background: ChildrenBackgroundWork;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-child-interleavings-'));
  // The shipped configuration, plus the child-creation grant for demo-consent-agent: a grandchild actor that is
  // neither the root's client (demo-agent) nor the child's (demo-subagent).
  const config = JSON.parse(readFileSync(demoConfigFile, 'utf8')) as { clients: { client_id: string; grant_types: string[] }[] };
  config.clients.find((client) => client.client_id === 'demo-consent-agent')!.grant_types.push(CHILD_CREATION_GRANT);
  const configFile = join(dataDir, 'issuer.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  ({ service } = await startIssuer(join(dataDir, 'data'), { CONFIG_FILE: configFile }));
  store = service.app.get(EVENT_STORE);
  creations = service.app.get(ChildCreations);
  background = service.app.get(ChildrenBackgroundWork);
});
afterEach(() => {
  creations.beforeCommit = undefined;
  creations.afterAttach = undefined;
  creations.afterChildCreated = undefined;
  background.beforeCascade = undefined;
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 2, children: { max_children: 3, max_child_depth: 2 } } },
];
/** A child that may create one more generation. */
const CHILD_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_children: 3, max_child_depth: 1 } } },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];
const BY_CASCADE = { id: 'issuer:cascade', role: 'system' };
const BY_CREATION = { id: 'issuer:child-creation', role: 'system' };

/** Where, in the creation request, R and K happen. */
type Point = 'before attach' | 'after attach' | 'after create' | 'after the answer';
const POINTS: readonly Point[] = ['before attach', 'after attach', 'after create', 'after the answer'];

interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const types = async (stream: string): Promise<string[]> => (await collect(store.readStream(stream))).map((event) => event.type);
const cascadeWorkDone = async (parentId: string): Promise<boolean> => (await types(`pm_mission_cascade-${parentId}`)).includes('WorkCompleted');

/** Runs one creation with R and K staged at the given points; returns what the requester got and what was written. */
async function interleave(root: MissionHolder, revokeAt: Point, cascadeAt: Point) {
  const parentId = root.tokens.mission_id;
  const cascadeGate = gate();
  background.beforeCascade = async (id) => (id === parentId ? cascadeGate.wait : undefined);
  let childId: string | undefined;
  let revoked = false;
  let cascadeReleased = false;

  const revoke = async (): Promise<void> => {
    const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: parentId, operation: 'revoke', reason: 'interleaving' });
    expect(reply.status).toBe(200);
    revoked = true;
  };
  const cascade = async (): Promise<void> => {
    cascadeGate.open();
    cascadeReleased = true;
    // Before the attachment the revocation has no open child, so no cascade work is scheduled at all.
    if ((await types(missionStreamName(parentId))).includes('ChildMissionAttached')) await eventually(() => cascadeWorkDone(parentId));
  };
  const visited = new Set<Point>();
  const at = async (point: Point): Promise<void> => {
    if (visited.has(point)) return;
    visited.add(point);
    if (revokeAt === point) await revoke();
    if (cascadeAt === point) await cascade();
  };

  creations.beforeCommit = () => at('before attach');
  creations.afterAttach = async (_, child) => {
    childId = child;
    await at('after attach');
  };
  creations.afterChildCreated = () => at('after create');
  const answer = await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS });
  const body = (await answer.json()) as Record<string, unknown>;
  await at('after the answer');
  // K staged at a point the request never reached (the attachment was refused): it runs now.
  if (!cascadeReleased) await cascade();
  expect(revoked).toBe(true);
  return { status: answer.status, body, childId };
}

/** The child's stream and grant once everything has run: what any later reader sees. */
async function outcome(parentId: string, childId: string) {
  const attachment = (await collect(store.readStream(missionStreamName(parentId)))).find((event) => event.type === 'ChildMissionAttached')!.data as unknown as ChildMissionAttachedData;
  const { state } = await aggregateStream(store, missionStreamName(childId), missionDecider);
  const events = await collect(store.readStream(missionStreamName(childId)));
  return {
    childEvents: events.map((event) => event.type),
    /** Who recorded the cascade: the cascade process manager, or the creation that found its parent ended. */
    cascadedBy: events.find((event) => event.type.startsWith('MissionCascaded'))?.data['actor'],
    lifecycle: missionExists(state) ? state.lifecycle : state.cascadedBeforeCreation ? 'cascaded before creation' : 'none',
    grantEvents: await types(grantStreamName(attachment.grant_id)),
  };
}

describe('spec 4.1 rule 1, 3.2 (decision 0021): creation and cascade agree in every interleaving of attach, create, parent revoke and cascade work', () => {
  it.each([
    ['before attach', 'before attach'],
    ['before attach', 'after attach'],
    ['before attach', 'after the answer'],
  ] as const)('R (%s) before A, K %s: the attachment is refused — parent_not_active, nothing attached', async (revokeAt, cascadeAt) => {
    const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    const { status, body, childId } = await interleave(root, revokeAt, cascadeAt);
    expect({ status, error: body['error'], reason: body['mission_denial_reason'] }).toEqual({ status: 400, error: 'invalid_grant', reason: 'parent_not_active' });
    expect(childId).toBeUndefined();
    expect(await types(missionStreamName(root.tokens.mission_id))).toEqual(['MissionCreated', 'MissionRevoked']);
  });

  it.each([
    // A R K C: the cascade reaches the attached child before its stream exists and marks it; MissionCreated is refused.
    ['after attach', 'after attach', ['MissionCascadedBeforeCreation'], 'cascaded before creation', BY_CASCADE],
    // A R C K, K before the creation's lineage read: K cascades the created child; the creation then sees it ended.
    ['after attach', 'after create', ['MissionCreated', 'MissionCascaded'], 'cascaded', BY_CASCADE],
    // A R C K, K after the creation's lineage read: the creation cascades the child itself, K finds nothing to do.
    ['after attach', 'after the answer', ['MissionCreated', 'MissionCascaded'], 'cascaded', BY_CREATION],
    // A C R K, K before the lineage read.
    ['after create', 'after create', ['MissionCreated', 'MissionCascaded'], 'cascaded', BY_CASCADE],
    // A C R K, K after the lineage read.
    ['after create', 'after the answer', ['MissionCreated', 'MissionCascaded'], 'cascaded', BY_CREATION],
  ] as const)('A, R %s, K %s: parent_not_active, the child ends cascaded, no creation grant is ever issued', async (revokeAt, cascadeAt, childEvents, lifecycle, cascadedBy) => {
    const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    const { status, body, childId } = await interleave(root, revokeAt, cascadeAt);
    expect({ status, error: body['error'], reason: body['mission_denial_reason'], request_uri: body['request_uri'] }).toEqual({
      status: 400, error: 'invalid_grant', reason: 'parent_not_active', request_uri: undefined,
    });
    await eventually(() => cascadeWorkDone(root.tokens.mission_id));
    expect(await outcome(root.tokens.mission_id, childId!)).toEqual({ childEvents, cascadedBy, lifecycle, grantEvents: [] });
    // The child is cascaded (or was never created): never reported active.
    const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/status', { mission_id: childId! });
    expect(reply.status).toBe(lifecycle === 'cascaded' ? 200 : 404);
  });

  it('A, C, the answer, then R and K: the creation committed first (201) and is cascaded over; its grant redeems nothing', async () => {
    const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    const { status, body, childId } = await interleave(root, 'after the answer', 'after the answer');
    expect(status).toBe(201);
    expect(await outcome(root.tokens.mission_id, childId!)).toEqual({
      childEvents: ['MissionCreated', 'MissionCascaded'], cascadedBy: BY_CASCADE, lifecycle: 'cascaded', grantEvents: ['ChildGrantIssued'],
    });
    const redeemed = await redeemChild(service.listenUrl, 'demo-subagent', String(body['request_uri']), await DpopKey.generate());
    expect(redeemed.status).toBe(400);
    expect(await redeemed.json()).toMatchObject({ error: 'invalid_grant', mission_error: 'mission_cascaded' });
  });

  it('covers every order of A, C, R, K with A before C and R before K', () => {
    // The six orders, by where R and K fall relative to A, C and the answer (the cases above, plus K on either
    // side of the creation's lineage read where both follow C).
    const orders = new Set<string>();
    for (const revokeAt of POINTS) {
      for (const cascadeAt of POINTS.slice(POINTS.indexOf(revokeAt))) {
        const sequence: string[] = [];
        for (const point of POINTS) {
          if (point === 'after attach') sequence.push('A');
          if (point === 'after create') sequence.push('C');
          if (revokeAt === point) sequence.push('R');
          if (cascadeAt === point) sequence.push('K');
        }
        orders.add(sequence.join(''));
      }
    }
    expect([...orders].sort()).toEqual(['ACRK', 'ARCK', 'ARKC', 'RAKC', 'RKAC', 'RACK'].sort());
  });

  describe('an ancestor ends while a grandchild is being created (the cascade reaches it one generation down)', () => {
    interface Lineage {
      readonly root: MissionHolder;
      readonly child: MissionHolder;
      grandchildId?: string;
    }
    /** Root → child (demo-subagent) → a grandchild (demo-consent-agent) created under the child, with the hooks given. */
    async function grandchildCreation(hooks: { afterAttach?: (lineage: Lineage) => Promise<void>; afterChildCreated?: (lineage: Lineage) => Promise<void> }) {
      const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
      const lineage: Lineage = { root, child: await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS }) };
      creations.afterAttach = async (_, id) => {
        lineage.grandchildId = id;
        await hooks.afterAttach?.(lineage);
      };
      creations.afterChildCreated = async () => hooks.afterChildCreated?.(lineage);
      const answer = await requestChild(service.listenUrl, lineage.child, { childActor: { sub: 'demo-consent-agent' }, details: LEAF_DETAILS });
      const body = (await answer.json()) as Record<string, unknown>;
      return { ...lineage, grandchildId: lineage.grandchildId!, answer: { status: answer.status, reason: body['mission_denial_reason'], request_uri: body['request_uri'] } };
    }
    const revokeRoot = async ({ root }: Lineage): Promise<void> => {
      const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation: 'revoke', reason: 'ancestor ends' });
      expect(reply.status).toBe(200);
    };
    const REFUSED = { status: 400, reason: 'parent_not_active', request_uri: undefined };

    it('A, the root revoked, the cascade reaching the grandchild before its stream exists, C: parent_not_active; cascaded before creation', async () => {
      const outcome = await grandchildCreation({
        afterAttach: async (lineage) => {
          await revokeRoot(lineage);
          // The root's cascade records the child cascaded, whose own cascade then reaches the attached grandchild.
          await eventually(async () => (await types(missionStreamName(lineage.grandchildId!))).length > 0);
        },
      });
      expect(outcome.answer).toEqual(REFUSED);
      const events = await collect(store.readStream(missionStreamName(outcome.grandchildId)));
      expect(events.map((event) => event.type)).toEqual(['MissionCascadedBeforeCreation']);
      expect(events[0]!.data).toMatchObject({ parent_id: outcome.child.tokens.mission_id, trigger: { mission_id: outcome.child.tokens.mission_id, state: 'cascaded' } });
    });

    it('A, C, the root revoked before the creation reads the lineage, its cascade held: the creation cascades the grandchild itself; parent_not_active', async () => {
      const held = gate();
      let rootId = '';
      background.beforeCascade = async (id) => (id === rootId ? held.wait : undefined);
      const outcome = await grandchildCreation({
        afterChildCreated: async (lineage) => {
          rootId = lineage.root.tokens.mission_id;
          await revokeRoot(lineage);
        },
      });
      expect(outcome.answer).toEqual(REFUSED);
      const events = await collect(store.readStream(missionStreamName(outcome.grandchildId)));
      expect(events.map((event) => event.type)).toEqual(['MissionCreated', 'MissionCascaded']);
      const revokedAt = (await collect(store.readStream(missionStreamName(outcome.root.tokens.mission_id)))).find((event) => event.type === 'MissionRevoked')!.data['occurred_at'];
      // Its parent (the child) is only projected cascaded yet: the trigger is the child, effective when the root ended.
      expect(events[1]!.data).toMatchObject({ actor: BY_CREATION, trigger: { mission_id: outcome.child.tokens.mission_id, state: 'cascaded' }, effective_at: revokedAt });
      held.open();
      await eventually(async () => (await types(missionStreamName(outcome.child.tokens.mission_id))).includes('MissionCascaded'));
      await eventually(() => cascadeWorkDone(outcome.child.tokens.mission_id));
      expect(await types(missionStreamName(outcome.grandchildId))).toEqual(['MissionCreated', 'MissionCascaded']);
    });
  });
});
