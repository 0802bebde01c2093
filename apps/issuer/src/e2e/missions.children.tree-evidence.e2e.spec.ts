import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildEvidence } from '@mission/issuer-domain';
import { MISSION_TREE_FILE } from '../read-models/mission-tree.read-model.js';
import {
  as,
  childMission,
  DELEGABLE_CHILD_SET,
  deniedEvidence,
  issuerService,
  lifecycle,
  post,
  restartIssuer,
  rootMission,
  useChildMissionsIssuer,
} from '../testing/child-missions-e2e.js';

/** Child Missions over HTTP: the delegation tree and Child Evidence, and malformed input there (DESIGN 2.1, spec 2.3, 2.4, 2.6, 3.2). */
useChildMissionsIssuer();

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

  it('ADR 0086: after a restart the tree comes from the model kept under DATA_DIR; a deleted model is rebuilt to the same tree', async () => {
    const root = await rootMission();
    const child = await childMission(root, { set: DELEGABLE_CHILD_SET });
    await childMission(child);
    await lifecycle(child, 'suspend');
    const before = await tree(root);
    const withoutTime = ({ nodes, truncated, projection }: TreeAnswer) => ({ nodes, truncated, position: projection.position });

    let modelFile = '';
    await restartIssuer((dataDir) => {
      modelFile = join(dataDir, MISSION_TREE_FILE);
      expect(existsSync(modelFile)).toBe(true);
    });
    expect(withoutTime(await tree(root))).toEqual(withoutTime(before));

    await restartIssuer(() => rmSync(modelFile));
    expect(withoutTime(await tree(root))).toEqual(withoutTime(before));
    expect(before.nodes.map((node) => node.state)).toEqual(['active', 'suspended', 'suspended']);
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

    const json = await fetch(`${issuerService().listenUrl}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mission_id: root }) });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });
});
