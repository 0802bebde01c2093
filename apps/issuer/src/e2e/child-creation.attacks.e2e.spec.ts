import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { missionStreamName, type ChildEvidence } from '@mission/issuer-domain';
import { DpopKey } from '@mission/mission-client';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import {
  missionIntent, obtainChildMission, obtainRootMission, postAs, redeemChild, requestChild, type IssuedTokens, type MissionHolder,
} from '../testing/mission-flows.js';
import { startIssuer } from '../testing/run-issuer.js';
import { CreateChildMissionHandler as ChildCreations } from '../use-cases/create-child-mission/create-child-mission.handler.js';
import { expectRefusal } from '../testing/expect-refusal.js';
import { deniedEvidenceOf } from '../testing/denied-evidence.js';

/*
 * Issue 11, attacker tests over HTTP against the shipped demo config: each would pass a request the issuer
 * used to accept. The cast: `demo-agent` holds the root, `demo-subagent` its child, `demo-worker` a third agent,
 * `demo-consent-agent` a client with status and introspection permissions unrelated to the lineage.
 */

let dataDir: string;
let service: RunningService;
let store: EventStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-child-attacks-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
/** Entry 0 delegable two generations down, no max_children (spec 2.4 rule 4: unbounded breadth). */
const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'], delegation: { max_depth: 2, children: { max_child_depth: 2 } } },
];
const CHILD_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_child_depth: 1 } } },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

const rootMission = (): Promise<MissionHolder> => obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });


const denied = (parentMissionId: string): Promise<ChildEvidence[]> => deniedEvidenceOf(store, parentMissionId);

async function createdRequestUri(parent: MissionHolder, childClientId: string, details: unknown = LEAF_DETAILS): Promise<string> {
  const created = await requestChild(service.listenUrl, parent, { childActor: { sub: childClientId }, details });
  expect(created.status).toBe(201);
  return ((await created.json()) as { request_uri: string }).request_uri;
}

describe('spec 1 item 4, 5 rule 3: the parent never holds child tokens (issue 11 defect 1)', () => {
  it('spec 1 item 4, 2.5 rule 8 (attacker: the parent names itself as child_actor): 400 child_actor_not_allowed, denied evidence, nothing attached', async () => {
    const root = await rootMission();
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-agent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'child_actor_not_allowed');
    const [evidence] = await denied(root.tokens.mission_id);
    expect(evidence).toMatchObject({
      decision: 'denied', denial_reason: 'child_actor_not_allowed', child_actor: { sub: 'demo-agent' },
      attenuation: { checks: ['parent_match', 'parent_active', 'delegation_permitted', 'child_actor'], refused_by: 'child_actor', result: 'not_evaluated' },
    });
    const parentEvents = await collect(store.readStream(missionStreamName(root.tokens.mission_id)));
    expect(parentEvents.map((event) => event.type)).toEqual(['MissionCreated']);
  });

  it('spec 1 item 4 (attacker: a child names its own parent\'s client — the root\'s — as a grandchild actor): 400 child_actor_not_allowed', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS });
    await expectRefusal(await requestChild(service.listenUrl, child, { childActor: { sub: 'demo-agent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'child_actor_not_allowed');
    await expectRefusal(await requestChild(service.listenUrl, child, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'child_actor_not_allowed');
    expect((await denied(child.tokens.mission_id)).map((evidence) => evidence.child_actor.sub)).toEqual(['demo-agent', 'demo-subagent']);
    // A third agent is a legitimate grandchild actor.
    const grandchild = await obtainChildMission(service.listenUrl, child, 'demo-worker', { details: LEAF_DETAILS });
    expect(grandchild.tokens.parent).toMatchObject({ id: child.tokens.mission_id, depth: 2 });
  });

  it('spec 2.5 rule 8, 5 rule 4 (attacker: the child client redeems with the parent grant\'s DPoP key): 400 invalid_grant, denied evidence; the child\'s own key still redeems', async () => {
    const root = await rootMission();
    const requestUri = await createdRequestUri(root, 'demo-subagent');
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-subagent', requestUri, root.dpop), 400, 'invalid_grant');
    const [evidence] = await denied(root.tokens.mission_id);
    expect(evidence).toMatchObject({ decision: 'denied', denial_reason: 'child_actor_not_allowed', attenuation: { checks: ['redemption_key'], refused_by: 'redemption_key' } });
    const own = await DpopKey.generate();
    const redeemed = await redeemChild(service.listenUrl, 'demo-subagent', requestUri, own);
    expect(redeemed.status).toBe(200);
    expect(((await redeemed.json()) as IssuedTokens).mission_id).toBe(evidence!.child!.id);
  });

  it('spec 2.5 rule 8 (attacker: a grandchild redeems with the root grant\'s key, two generations up): 400 invalid_grant', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS });
    const requestUri = await createdRequestUri(child, 'demo-worker');
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-worker', requestUri, root.dpop), 400, 'invalid_grant');
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-worker', requestUri, child.dpop), 400, 'invalid_grant');
    expect((await redeemChild(service.listenUrl, 'demo-worker', requestUri, await DpopKey.generate())).status).toBe(200);
  });
});

describe('spec 2.4 rule 3, liveness: honest fan-out never fails (issue 11 defect 6)', () => {
  it('spec 2.4 rules 3–4: 100 concurrent creations on a parent without max_children → 100 × 201, 0 × 5xx; one writer per parent stream at a time', async () => {
    const root = await rootMission();
    const creations = service.app.get(ChildCreations);
    // Observes the window between the checks and the commit: while one creation waits there (yielding to the event
    // loop), an unserialized creation would enter it too and later lose its append to a conflict.
    let inside = 0;
    let mostInside = 0;
    creations.beforeCommit = async () => {
      inside += 1;
      mostInside = Math.max(mostInside, inside);
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      inside -= 1;
    };
    try {
      const responses = await Promise.all(Array.from({ length: 100 }, () => requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })));
      expect(responses.map((response) => response.status)).toEqual(Array(100).fill(201));
    } finally {
      creations.beforeCommit = undefined;
    }
    expect(mostInside).toBe(1);
    const attached = (await collect(store.readStream(missionStreamName(root.tokens.mission_id)))).filter((event) => event.type === 'ChildMissionAttached');
    expect(new Set(attached.map((event) => (event.data as { child_mission_id: string }).child_mission_id)).size).toBe(100);
  }, 120_000);

  it('spec 2.4 rule 3, 4.1 rule 1 (another writer commits on the parent stream between the checks and the commit, three times): the creation retries and answers 201', async () => {
    const root = await rootMission();
    const creations = service.app.get(ChildCreations);
    let interruptions = 0;
    creations.beforeCommit = async () => {
      if (interruptions >= 3) return;
      interruptions += 1;
      // Another replica's writes: a suspend and a resume commit on the parent's stream, so this attempt's revision is stale.
      for (const operation of ['suspend', 'resume']) {
        const response = await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation, reason: 'another writer' });
        expect(response.status).toBe(200);
      }
    };
    try {
      expect((await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })).status).toBe(201);
    } finally {
      creations.beforeCommit = undefined;
    }
    expect(interruptions).toBe(3);
    const types = (await collect(store.readStream(missionStreamName(root.tokens.mission_id)))).map((event) => event.type);
    expect(types.filter((type) => type === 'ChildMissionAttached')).toHaveLength(1);
    expect(types[types.length - 1]).toBe('ChildMissionAttached');
  });
});

describe('spec 2.6, 6 rule 2: evidence records exactly the checks that ran (issue 11 defect 7)', () => {
  it('spec 2.6 (step 5 refusal): delegation_not_permitted lists steps 3–5 only, refused_by delegation_permitted, result not_evaluated', async () => {
    const root = await obtainRootMission(service.listenUrl, { details: LEAF_DETAILS });
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'delegation_not_permitted');
    const [evidence] = await denied(root.tokens.mission_id);
    expect(evidence!.attenuation).toMatchObject({ checks: ['parent_match', 'parent_active', 'delegation_permitted'], refused_by: 'delegation_permitted', result: 'not_evaluated' });
  });

  it('spec 2.6 (step 7 refusal): not_strict_subset is refused_by strict_subset with result not_strict_subset; no later check is listed', async () => {
    const root = await rootMission();
    const broader = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.delete'] }];
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: broader }), 400, 'invalid_request', 'not_strict_subset');
    const [evidence] = await denied(root.tokens.mission_id);
    expect(evidence!.attenuation).toMatchObject({ checks: ['parent_match', 'parent_active', 'delegation_permitted', 'child_actor', 'strict_subset'], refused_by: 'strict_subset', result: 'not_strict_subset' });
  });
});

describe('spec 5 rule 7: lineage only for callers entitled to the mission (issue 11 defect 8)', () => {
  it('spec 5 rule 7 (attacker: an unrelated client with the introspection permission): no parent member; Mission Status says 404; the lineage\'s own clients see it', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS });
    const introspect = async (clientId: string): Promise<Record<string, unknown>> => {
      const response = await postAs(service.listenUrl, clientId, '/introspect', { token: child.tokens.access_token });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const stranger = await introspect('demo-consent-agent');
    expect(stranger).toMatchObject({ active: true, mission: { id: child.tokens.mission_id, state: 'active' } });
    expect(stranger['mission']).not.toHaveProperty('parent');
    expect((await postAs(service.listenUrl, 'demo-consent-agent', '/missions/status', { mission_id: child.tokens.mission_id })).status).toBe(404);
    for (const entitled of ['demo-subagent', 'demo-agent', 'demo-admin']) {
      expect((await introspect(entitled))['mission']).toMatchObject({ parent: { id: root.tokens.mission_id, depth: 1 } });
    }
  });
});

describe('spec 2.5 rule 2, 2.1: the child intent and expiry stay within the parent (issue 11 defect 9)', () => {
  it('spec 2.5 rule 2 (attacker: the child intent names a resource outside the parent\'s intent): 400 not_strict_subset, nothing attached', async () => {
    const root = await rootMission();
    const intent = missionIntent(1_800_000, 'Read the payroll', ['https://erp.example.com', 'https://payroll.example.com']);
    await expectRefusal(
      await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, overrides: { mission_intent: intent } }),
      400, 'invalid_request', 'not_strict_subset',
    );
    const parentEvents = await collect(store.readStream(missionStreamName(root.tokens.mission_id)));
    expect(parentEvents.map((event) => event.type)).toEqual(['MissionCreated']);
  });
});
