import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { EventStore, JsonObject } from '@mission/event-store';
import { aggregateStream, handleCommand } from '@mission/es-kit';
import {
  authorityHash, childEvidenceStreamName, grantIdFromBytes, missionDecider, missionExists, missionIdFromBytes, missionStreamName, parseAuthorizationDetails,
  type AuthoritySet, type ChildEvidence, type MissionCommand, type ParentLink,
} from '@mission/issuer-domain';
import { issueAccessToken } from '@mission/issuer-oauth';
import { EVENT_STORE, SigningKeys, type RunningService } from '@mission/platform';
import { demoClient, postForm } from '../testing/demo-clients.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

let dataDir: string;
let service: RunningService;
let store: EventStore;
const post = (path: string, form: Record<string, string>) => postForm(service.listenUrl, path, form);
const as = async (clientId: string, path: string, form: Record<string, string>) => post(path, { ...(await (await demoClient(clientId)).assertion()), ...form });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-missions-children-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const ROOT_SET: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 3, max_child_depth: 3 } } },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/ledger', actions: ['ledger.read'] },
  { type: 'mission_resource_access', resource: 'https://erp.example.com/files', actions: ['files.read'], delegation: { children: {} } },
]);
/** A child that may itself have children (its entry 0 carries `children`). */
const DELEGABLE_CHILD_SET: AuthoritySet = parseAuthorizationDetails([
  { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'], delegation: { children: { max_children: 2, max_child_depth: 2 } } },
]);
const LEAF_SET: AuthoritySet = parseAuthorizationDetails([{ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.read'] }]);

async function decide(missionId: string, command: MissionCommand, clientId: string): Promise<void> {
  const actor = { id: clientId, role: 'client' };
  await handleCommand(store, missionStreamName(missionId), missionDecider, command, { correlationId: randomUUID(), causationId: 'test-seed', actor, now: new Date() }, { hashChain: true });
}

/** A root mission, as approval creates it. */
async function rootMission(clientId = 'demo-agent', set: AuthoritySet = ROOT_SET): Promise<string> {
  const missionId = missionIdFromBytes(randomBytes(16));
  const now = new Date();
  const expiresAt = new Date(now.getTime() + 3_600_000);
  await decide(missionId, {
    type: 'CreateMission', missionId, issuer: testBaseUrl, clientId, authoritySet: set, authorityHash: authorityHash(testBaseUrl, set),
    intent: { goal: 'Reconcile invoices', resources: ['https://erp.example.com/invoices'], expires_at: expiresAt.toISOString() },
    expiresAt, approvedBy: { id: 'alice', role: 'person' }, now,
  }, clientId);
  return missionId;
}

function createdEvidence(parentId: string, parentHash: string, childId: string, set: AuthoritySet, clientId: string, createdAt: Date, entries: readonly number[]): ChildEvidence {
  return {
    evidence_id: `evd_${randomUUID()}`,
    parent: { id: parentId, issuer: testBaseUrl, authority_hash: parentHash },
    child: { id: childId, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, set) },
    child_actor: { sub: clientId, sub_profile: 'ai_agent' },
    requested_by: 'demo-agent',
    attenuation: { result: 'strict_subset', checks: ['parent_active', 'child_actor', 'strict_subset'], justified_by: [...entries] },
    fanout: entries.map((entry) => ({ parent_entry: entry, active_children: 1 })),
    cascade_mode: 'immediate',
    decision: 'created',
    approval_basis: 'policy:allow',
    created_at: createdAt.toISOString(),
  };
}

/**
 * A Child Mission as creation makes it (DESIGN 2.4): attached on the parent's stream with its `created`
 * evidence, then created with its `parent` member (spec 2.3).
 */
async function childMission(parentId: string, options: { clientId?: string; set?: AuthoritySet; entries?: number[]; lifetimeMs?: number; createdAt?: Date } = {}): Promise<string> {
  const { state: parent } = await aggregateStream(store, missionStreamName(parentId), missionDecider);
  if (!missionExists(parent)) throw new Error('no parent');
  const childId = missionIdFromBytes(randomBytes(16));
  // Spec 1 item 4: a child actor is never its parent's client (a grandchild gets a third agent).
  const clientId = options.clientId ?? (parent.clientId === 'demo-subagent' ? 'demo-worker' : 'demo-subagent');
  const entries = options.entries ?? [0];
  // By default each child entry is its justifying parent entry without `delegation` (a strict subset).
  const set = options.set ?? entries.map((index) => Object.fromEntries(Object.entries(parent.authoritySet[index]!).filter(([member]) => member !== 'delegation')) as unknown as AuthoritySet[number]);
  const now = options.createdAt ?? new Date();
  const expiresAt = new Date(Math.min(Date.now() + (options.lifetimeMs ?? 1_800_000), parent.expiresAt.getTime()));
  await decide(parentId, {
    type: 'AttachChild', childMissionId: childId, childClientId: clientId, parentEntryIndexes: entries, actor: { id: parent.clientId, role: 'client' }, now,
    grantId: grantIdFromBytes(randomBytes(16)), grantExpiresAt: new Date(Date.now() + 3_600_000), cascadeMode: 'immediate',
    evidence: createdEvidence(parentId, parent.authorityHash, childId, set, clientId, now, entries),
    child: { authoritySet: set, expiresAt, intentResources: ['https://erp.example.com/invoices'].filter((resource) => parent.intent.resources.includes(resource)) },
  }, parent.clientId);
  const link: ParentLink = {
    id: parentId, issuer: testBaseUrl, authority_hash: parent.authorityHash, depth: (parent.parent?.depth ?? 0) + 1,
    delegation_id: `dlg_${childId}`, cascade_mode: 'immediate', created_at: now.toISOString(),
  };
  await decide(childId, {
    type: 'CreateMission', missionId: childId, issuer: testBaseUrl, clientId, authoritySet: set, authorityHash: authorityHash(testBaseUrl, set),
    intent: { goal: 'Read invoices', resources: ['https://erp.example.com/invoices'].filter((resource) => parent.intent.resources.includes(resource)), expires_at: expiresAt.toISOString() },
    expiresAt, approvedBy: { id: 'issuer:child-creation-policy', role: 'policy' }, now: new Date(), parent: link,
    parentBounds: { expiresAt: parent.expiresAt, intentResources: parent.intent.resources },
  }, clientId);
  return childId;
}

/** A `denied` Child Evidence record on `evidence-<parent>` (spec 2.6, decision 0009). */
async function deniedEvidence(parentId: string, createdAt: Date): Promise<string> {
  const evidenceId = `evd_${randomUUID()}`;
  const evidence: ChildEvidence = {
    evidence_id: evidenceId, parent: { id: parentId, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, ROOT_SET) },
    child_actor: { sub: 'demo-consent-agent' }, requested_by: 'demo-agent', attenuation: { result: 'not_evaluated', checks: ['parent_active', 'child_actor'] },
    cascade_mode: 'immediate', decision: 'denied', denial_reason: 'child_actor_not_allowed', created_at: createdAt.toISOString(),
  };
  await store.appendToStream(childEvidenceStreamName(parentId), [{ type: 'ChildCreationDenied', data: { parent_mission_id: parentId, evidence } as unknown as JsonObject }]);
  return evidenceId;
}

const lifecycle = async (missionId: string, operation: string, clientId = 'demo-agent') =>
  as(clientId, '/missions/lifecycle', { mission_id: missionId, operation, reason: `test ${operation}` });

async function status(missionId: string, clientId = 'demo-agent'): Promise<Record<string, unknown>> {
  const reply = await as(clientId, '/missions/status', { mission_id: missionId });
  expect(reply.status).toBe(200);
  const { payload } = await jwtVerify(await reply.text(), createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`)), { issuer: testBaseUrl, audience: clientId });
  return payload['mission'] as Record<string, unknown>;
}

describe('POST /missions/status reports the lineage state (spec 3.2, 4.3) and the parent projection (spec 2.7)', () => {
  it('spec 3.2, 4.3: a child is suspended while its parent is suspended and active again after resume', async () => {
    const root = await rootMission();
    const child = await childMission(root, { set: DELEGABLE_CHILD_SET });
    const grandchild = await childMission(child);
    expect(await status(child)).toMatchObject({ id: child, state: 'active' });

    expect((await lifecycle(root, 'suspend')).status).toBe(200);
    expect(await status(child)).toMatchObject({ id: child, state: 'suspended', version: 1, parent: { id: root, state: 'suspended' } });
    expect(await status(grandchild)).toMatchObject({ state: 'suspended', parent: { id: child, state: 'suspended' } });

    expect((await lifecycle(root, 'resume')).status).toBe(200);
    expect(await status(child)).toMatchObject({ state: 'active', parent: { state: 'active' } });
    expect(await status(grandchild)).toMatchObject({ state: 'active' });
  });

  it('spec 3.2: every descendant is reported cascaded as soon as the root is revoked, without waiting for the cascade process manager', async () => {
    const root = await rootMission();
    const child = await childMission(root, { set: DELEGABLE_CHILD_SET });
    const grandchild = await childMission(child);
    expect((await lifecycle(root, 'revoke')).status).toBe(200);
    expect(await status(child)).toMatchObject({ state: 'cascaded', parent: { id: root, state: 'revoked' } });
    expect(await status(grandchild)).toMatchObject({ state: 'cascaded', parent: { id: child, state: 'cascaded' } });
    expect(await status(root)).toMatchObject({ state: 'revoked' });
    expect((await status(root))['parent']).toBeUndefined();
  });

  it('spec 3.2 last row: the child\'s own expiry wins over the suspension projected from its parent', async () => {
    const root = await rootMission();
    // Far enough ahead that the suspension and the first status read happen before the child expires on a slow, loaded
    // machine; then wait until its expires_at (set inside childMission, so at most lifetime from now) has passed.
    const lifetimeMs = 4_000;
    const child = await childMission(root, { lifetimeMs });
    const expiredBy = Date.now() + lifetimeMs;
    await lifecycle(root, 'suspend');
    expect(await status(child)).toMatchObject({ state: 'suspended' });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiredBy - Date.now()) + 100));
    expect(await status(child)).toMatchObject({ state: 'expired', parent: { state: 'suspended' } });
  });

  it('spec 2.7: the parent member is {id, issuer, state, cascade_mode, observed_at}, the parent state read at observed_at', async () => {
    const root = await rootMission();
    const child = await childMission(root);
    const before = Date.now();
    const mission = await status(child, 'demo-subagent');
    expect(mission).toMatchObject({ id: child, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, LEAF_SET), state: 'active', version: 1 });
    const parent = mission['parent'] as Record<string, unknown>;
    expect(Object.keys(parent).sort()).toEqual(['cascade_mode', 'id', 'issuer', 'observed_at', 'state']);
    expect(parent).toMatchObject({ id: root, issuer: testBaseUrl, state: 'active', cascade_mode: 'immediate' });
    expect(Date.parse(String(parent['observed_at']))).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(String(parent['observed_at']))).toBeLessThanOrEqual(Date.parse(String(mission['fresh_until'])));
  });
});

describe('POST /introspect reports the lineage state of a Child Mission (spec 2.3, 4.3)', () => {
  async function childToken(missionId: string, parentId: string): Promise<string> {
    const { state } = await aggregateStream(store, missionStreamName(missionId), missionDecider);
    if (!missionExists(state)) throw new Error('no mission');
    const { accessToken } = await issueAccessToken(
      {
        issuer: testBaseUrl, subject: 'alice', audience: 'https://erp.example.com', clientId: 'demo-subagent', jkt: 'x'.repeat(43),
        authorizationDetails: LEAF_SET as never, mission: { id: missionId, issuer: testBaseUrl, authority_hash: state.authorityHash, parent: state.parent! as never },
        missionExpiresAt: state.expiresAt, issuedAt: new Date(), ttlSeconds: 300,
      },
      service.app.get(SigningKeys),
    );
    expect(state.parent?.id).toBe(parentId);
    return accessToken;
  }
  const introspect = async (token: string) => (await as('demo-agent', '/introspect', { token })).json() as Promise<Record<string, unknown>>;

  it('spec 4.3: active only while the lineage is active; the mission member carries parent (spec 2.3)', async () => {
    const root = await rootMission();
    const child = await childMission(root);
    const token = await childToken(child, root);
    const parent = { id: root, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, ROOT_SET), depth: 1, delegation_id: `dlg_${child}`, cascade_mode: 'immediate' };

    expect(await introspect(token)).toMatchObject({ active: true, client_id: 'demo-subagent', mission: { id: child, state: 'active', parent } });
    await lifecycle(root, 'suspend');
    expect(await introspect(token)).toEqual({
      active: false,
      mission: { id: child, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, LEAF_SET), parent: expect.objectContaining(parent), state: 'suspended' },
    });
    await lifecycle(root, 'resume');
    expect(await introspect(token)).toMatchObject({ active: true, mission: { state: 'active' } });
    await lifecycle(root, 'revoke');
    expect(await introspect(token)).toMatchObject({ active: false, mission: { id: child, state: 'cascaded' } });
  });
});

describe('descendant access at /missions/* (DESIGN 2.1)', () => {
  it('the client of a mission may act on its descendants; a child actor gains nothing over its parent', async () => {
    const root = await rootMission();
    const child = await childMission(root, { set: DELEGABLE_CHILD_SET });
    const grandchild = await childMission(child, { clientId: 'demo-consent-agent' });

    expect(await status(grandchild, 'demo-agent')).toMatchObject({ id: grandchild });
    expect(await status(grandchild, 'demo-subagent')).toMatchObject({ id: grandchild });
    expect(await status(child, 'demo-subagent')).toMatchObject({ id: child });
    for (const [clientId, missionId] of [['demo-subagent', root], ['demo-consent-agent', child], ['demo-consent-agent', root]] as const) {
      const reply = await as(clientId, '/missions/status', { mission_id: missionId });
      expect([clientId, reply.status]).toEqual([clientId, 404]);
    }
    // Lifecycle through the lineage: the root's client suspends the grandchild.
    expect(await (await lifecycle(grandchild, 'suspend')).json()).toEqual({ mission_id: grandchild, state: 'suspended', version: 2 });
  });

  it('unknown, not-yours (a stranger to the lineage) and malformed missions get byte-identical 404 bodies at status, lifecycle, tree and evidence', async () => {
    const foreignRoot = await rootMission('demo-consent-agent');
    const foreignChild = await childMission(foreignRoot, { clientId: 'demo-subagent' });
    for (const path of ['/missions/status', '/missions/lifecycle', '/missions/tree', '/missions/evidence']) {
      const extra: Record<string, string> = path === '/missions/lifecycle' ? { operation: 'suspend', reason: 'x' } : {};
      const replies = [
        await as('demo-agent', path, { mission_id: missionIdFromBytes(randomBytes(16)), ...extra }),
        await as('demo-agent', path, { mission_id: foreignRoot, ...extra }),
        await as('demo-agent', path, { mission_id: foreignChild, ...extra }),
        await as('demo-agent', path, { mission_id: 'msn_not-a-mission', ...extra }),
      ];
      expect([path, replies.map((reply) => reply.status)]).toEqual([path, [404, 404, 404, 404]]);
      const bodies = await Promise.all(replies.map((reply) => reply.text()));
      expect(new Set(bodies)).toEqual(new Set(['{"error":"not_found"}']));
    }
    // The audit endpoints need the `audit` permission: the child actor has none, even for its own mission.
    expect((await as('demo-subagent', '/missions/tree', { mission_id: foreignChild })).status).toBe(404);
    expect((await as('demo-admin', '/missions/tree', { mission_id: foreignChild })).status).toBe(200);
  });

  it('spec 3.2, 3.1: a lifecycle operation on a child already cascaded by its lineage is refused 409 mission_cascaded', async () => {
    const root = await rootMission();
    const child = await childMission(root);
    await lifecycle(root, 'revoke');
    const reply = await lifecycle(child, 'complete');
    expect(reply.status).toBe(409);
    expect(await reply.json()).toMatchObject({ error: 'conflict', reason: 'mission_cascaded' });
  });
});

interface TreeAnswer {
  mission_id: string;
  observed_at: string;
  projection: { caught_up: boolean; position?: string; applied_through?: string };
  nodes: { mission_id: string; parent_id?: string; client_id: string; state: string; depth: number; cascade_mode?: string; created_at: string; fanout: unknown[] }[];
  truncated: boolean;
}

describe('POST /missions/tree (DESIGN 2.1, spec 2.3, 2.4, 3.2)', () => {
  async function tree(missionId: string, clientId = 'demo-agent'): Promise<TreeAnswer> {
    const reply = await as(clientId, '/missions/tree', { mission_id: missionId });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    return (await reply.json()) as TreeAnswer;
  }

  it('spec 2.3, 2.4: the tree under a mission with depth, cascade_mode, lineage states and per delegable entry fan-out counters', async () => {
    const root = await rootMission();
    const a = await childMission(root, { set: DELEGABLE_CHILD_SET, entries: [0] });
    const b = await childMission(root, { entries: [0, 2] });
    const grandchild = await childMission(a, { clientId: 'demo-consent-agent' });
    const answer = await tree(root);

    expect(answer).toMatchObject({ mission_id: root, truncated: false, projection: { caught_up: true } });
    expect(Date.parse(answer.observed_at)).not.toBeNaN();
    expect(answer.nodes.map((node) => [node.mission_id, node.parent_id, node.client_id, node.depth, node.cascade_mode, node.state])).toEqual([
      [root, undefined, 'demo-agent', 0, undefined, 'active'],
      [a, root, 'demo-subagent', 1, 'immediate', 'active'],
      [b, root, 'demo-subagent', 1, 'immediate', 'active'],
      [grandchild, a, 'demo-consent-agent', 2, 'immediate', 'active'],
    ]);
    expect(answer.nodes[0]!.fanout).toEqual([{ parent_entry: 0, active_children: 2, max_children: 3 }, { parent_entry: 2, active_children: 1 }]);
    expect(answer.nodes[1]!.fanout).toEqual([{ parent_entry: 0, active_children: 1, max_children: 2 }]);
    expect(answer.nodes[2]!.fanout).toEqual([]);

    const subtree = await tree(a, 'demo-admin');
    expect(subtree.nodes.map((node) => node.mission_id)).toEqual([a, grandchild]);
  });

  it('spec 3.2, 4.3: node states are lineage states — suspended under a suspended root, cascaded under a revoked one', async () => {
    const root = await rootMission();
    const child = await childMission(root, { set: DELEGABLE_CHILD_SET });
    const grandchild = await childMission(child);
    await lifecycle(root, 'suspend');
    expect((await tree(root)).nodes.map((node) => node.state)).toEqual(['suspended', 'suspended', 'suspended']);
    // The subtree of a child still sees the suspended root above it.
    expect((await tree(child)).nodes.map((node) => [node.mission_id, node.state])).toEqual([[child, 'suspended'], [grandchild, 'suspended']]);
    await lifecycle(root, 'resume');
    expect((await tree(root)).nodes.map((node) => node.state)).toEqual(['active', 'active', 'active']);
    await lifecycle(root, 'revoke');
    expect((await tree(root)).nodes.map((node) => node.state)).toEqual(['revoked', 'cascaded', 'cascaded']);
  });
});

describe('POST /missions/evidence (DESIGN 2.1, spec 2.6, 5 rule 7)', () => {
  const evidence = async (form: Record<string, string>, clientId = 'demo-agent') => as(clientId, '/missions/evidence', form);

  it('spec 2.6: created (ChildMissionAttached) and denied (evidence-<parent> stream) records merged in created_at order, no-store', async () => {
    const root = await rootMission();
    const t = Date.now();
    const at = (seconds: number) => new Date(t + seconds * 1000);
    const denied1 = await deniedEvidence(root, at(1));
    const c2 = await childMission(root, { createdAt: at(2) });
    const denied3 = await deniedEvidence(root, at(3));
    const c4 = await childMission(root, { createdAt: at(4), entries: [2] });
    const denied5 = await deniedEvidence(root, at(5));

    const reply = await evidence({ mission_id: root });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const body = (await reply.json()) as { mission_id: string; evidence: ChildEvidence[]; next_cursor?: string };
    expect(body.mission_id).toBe(root);
    expect(body.next_cursor).toBeUndefined();
    expect(body.evidence.map((record) => [record.decision, record.child?.id ?? record.evidence_id])).toEqual([
      ['denied', denied1], ['created', c2], ['denied', denied3], ['created', c4], ['denied', denied5],
    ]);
    expect(body.evidence[1]).toMatchObject({ decision: 'created', parent: { id: root }, child_actor: { sub: 'demo-subagent' }, cascade_mode: 'immediate', attenuation: { result: 'strict_subset' } });
    expect(body.evidence[0]).toMatchObject({ decision: 'denied', denial_reason: 'child_actor_not_allowed' });
  });

  it('pages with max_results and an opaque cursor', async () => {
    const root = await rootMission();
    const t = Date.now();
    const ids = [await deniedEvidence(root, new Date(t + 1000)), await childMission(root, { createdAt: new Date(t + 2000) }), await deniedEvidence(root, new Date(t + 3000))];
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const reply = await evidence({ mission_id: root, max_results: '2', ...(cursor !== undefined ? { cursor } : {}) });
      expect(reply.status).toBe(200);
      const body = (await reply.json()) as { evidence: ChildEvidence[]; next_cursor?: string };
      seen.push(...body.evidence.map((record) => record.child?.id ?? record.evidence_id));
      cursor = body.next_cursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(ids);
  });

  it.each([
    ['max_results 0', { max_results: '0' }],
    ['max_results 1001', { max_results: '1001' }],
    ['a non-numeric max_results', { max_results: 'ten' }],
    ['a cursor it did not issue', { cursor: 'bm90LWEtY3Vyc29y' }],
  ])('answers %s with 400 invalid_request', async (_, form) => {
    const root = await rootMission();
    const reply = await evidence({ mission_id: root, ...form });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('malformed input at /missions/tree and /missions/evidence is a 4xx, never a 5xx', () => {
  it.each(['/missions/tree', '/missions/evidence'])('%s: missing and oversized mission_id, bad client auth, a JSON body', async (path) => {
    const missing = await as('demo-agent', path, {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not_found' });

    const oversized = await as('demo-agent', path, { mission_id: `msn_${'A'.repeat(5000)}` });
    expect(oversized.status).toBe(400);
    expect(await oversized.json()).toMatchObject({ error: 'invalid_request' });

    const root = await rootMission();
    const anonymous = await post(path, { mission_id: root });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_client' });

    const forged = await post(path, { mission_id: root, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: 'not.a.jwt' });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
    expect(await forged.json()).toMatchObject({ error: 'invalid_client' });

    const json = await fetch(`${service.listenUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mission_id: root }) });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });
});
