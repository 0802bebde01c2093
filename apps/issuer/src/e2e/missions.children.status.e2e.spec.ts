import { randomBytes } from 'node:crypto';
import { aggregateStream } from '@mission/es-kit';
import { authorityHash, missionDecider, missionExists, missionIdFromBytes, missionStreamName } from '@mission/issuer-domain';
import { issueAccessToken } from '@mission/issuer-oauth';
import { SigningKeys } from '@mission/platform';
import { testBaseUrl } from '../testing/run-issuer.js';
import {
  as,
  childMission,
  DELEGABLE_CHILD_SET,
  issuerService,
  issuerStore,
  LEAF_SET,
  lifecycle,
  ROOT_SET,
  rootMission,
  status,
  useChildMissionsIssuer,
} from '../testing/child-missions-e2e.js';

/** Child Missions over HTTP: status and introspection report the lineage state; descendant access (spec 2.3, 2.7, 3.2, 4.3; DESIGN 2.1). */
useChildMissionsIssuer();

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
    const { state } = await aggregateStream(issuerStore(), missionStreamName(missionId), missionDecider);
    if (!missionExists(state)) throw new Error('no mission');
    const { accessToken } = await issueAccessToken(
      {
        issuer: testBaseUrl, subject: 'alice', audience: 'https://erp.example.com', clientId: 'demo-subagent', jkt: 'x'.repeat(43),
        authorizationDetails: LEAF_SET as never, mission: { id: missionId, issuer: testBaseUrl, authority_hash: state.authorityHash, parent: state.parent! as never },
        missionExpiresAt: state.expiresAt, issuedAt: new Date(), ttlSeconds: 300,
      },
      issuerService().app.get(SigningKeys),
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
