import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { EventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { authorityHash, missionStreamName, parseAuthorizationDetails, type ChildCreationDeniedData } from '@mission/issuer-domain';
import { DpopKey } from '@mission/mission-client';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import {
  obtainChildMission, obtainRootMission, postAs, redeemChild, refreshTokens, requestChild, type IssuedTokens, type MissionHolder,
} from '../testing/mission-flows.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';
import { CreateChildMissionHandler as ChildCreations } from '../use-cases/create-child-mission/create-child-mission.handler.js';
import { expectRefusal } from '../testing/expect-refusal.js';
import { deniedEvidenceOf } from '../testing/denied-evidence.js';

let dataDir: string;
let service: RunningService;
let store: EventStore;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-children-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
const PAYMENTS = 'https://erp.example.com/payments';
const REPORTS = 'https://erp.example.com/reports';

/** Entry 0 delegable to ai_agent actors, up to 3 at a time, two generations; entry 1 not delegable; entry 2 delegable to batch workers only. */
const ROOT_DETAILS = [
  {
    type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'], constraints: { max_amount: { value: '500.00', currency: 'EUR' } },
    delegation: { max_depth: 2, children: { max_children: 3, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 2 } },
  },
  { type: 'mission_resource_access', resource: PAYMENTS, actions: ['payments.read'] },
  { type: 'mission_resource_access', resource: REPORTS, actions: ['reports.read'], delegation: { children: { allowed_child_actors: [{ sub_profile: 'batch_worker' }] } } },
];
/** A strict subset of entry 0: one action, same constraint, children decremented. */
const CHILD_DETAILS = [
  {
    type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], constraints: { max_amount: { value: '500.00', currency: 'EUR' } },
    delegation: { max_depth: 1, children: { max_children: 3, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 1 } },
  },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], constraints: { max_amount: { value: '500.00', currency: 'EUR' } } }];

const rootMission = (details: unknown = ROOT_DETAILS, lifetimeMs?: number): Promise<MissionHolder> =>
  obtainRootMission(service.listenUrl, { details, ...(lifetimeMs !== undefined ? { lifetimeMs } : {}) });


const deniedEvidence = (parentMissionId: string): Promise<ChildCreationDeniedData['evidence'][]> => deniedEvidenceOf(store, parentMissionId);

describe('Child Mission creation and redemption (spec 4.1, 4.2, DESIGN 2.4)', () => {
  it('spec 4.1, 4.2, 2.3, 2.5 rule 8: created at /par, redeemed by the child actor with its own key; tokens carry parent and the child authority_hash', async () => {
    const root = await rootMission();
    const created = await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent', sub_profile: 'ai_agent' }, details: CHILD_DETAILS, lifetimeMs: 7_200_000 });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const { request_uri: requestUri, expires_in: expiresIn } = (await created.json()) as { request_uri: string; expires_in: number };
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:grt_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(expiresIn).toBe(300);

    const childKey = await DpopKey.generate();
    const redeemed = await redeemChild(service.listenUrl, 'demo-subagent', requestUri, childKey);
    expect(redeemed.status).toBe(200);
    const tokens = (await redeemed.json()) as IssuedTokens;
    expect(tokens.mission_id).toMatch(/^msn_/);
    expect(tokens.mission_id).not.toBe(root.tokens.mission_id);
    // DESIGN 2.4: the child's expires_at is capped at the parent's (the request asked for 2 h, the parent has 1 h).
    expect(tokens.mission_expires_at).toBe(root.tokens.mission_expires_at);
    expect(tokens.parent).toMatchObject({ id: root.tokens.mission_id, issuer: testBaseUrl, depth: 1, cascade_mode: 'immediate' });
    // Spec 2.1: the child's own record holds the child_actor object and the fan-out policy result.
    const [record] = await collect(store.readStream(missionStreamName(tokens.mission_id), { maxCount: 1 }));
    expect(record?.data).toMatchObject({ client_id: 'demo-subagent', child_actor: { sub: 'demo-subagent', sub_profile: 'ai_agent' }, fanout: [{ parent_entry: 0, active_children: 1 }] });

    const jwks = createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: testBaseUrl, typ: 'at+jwt' });
    const rootClaims = (await jwtVerify(root.tokens.access_token, jwks)).payload;
    const childSet = parseAuthorizationDetails(CHILD_DETAILS);
    expect(payload).toMatchObject({
      client_id: 'demo-subagent',
      sub: rootClaims.sub,
      cnf: { jkt: childKey.jkt },
      authorization_details: childSet,
      mission: {
        id: tokens.mission_id,
        issuer: testBaseUrl,
        authority_hash: authorityHash(testBaseUrl, childSet),
        parent: { id: root.tokens.mission_id, issuer: testBaseUrl, authority_hash: (rootClaims['mission'] as { authority_hash: string }).authority_hash, depth: 1, cascade_mode: 'immediate' },
      },
    });
    expect(payload.exp! * 1000).toBeLessThanOrEqual(Date.parse(root.tokens.mission_expires_at));

    // The child refreshes with its own key; its refresh token carries the parent too.
    const refreshed = await refreshTokens(service.listenUrl, { clientId: 'demo-subagent', dpop: childKey, tokens });
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as IssuedTokens).parent).toEqual(tokens.parent);
  });

  it('DESIGN 2.4: the request_uri is single use; a second redemption is invalid_grant and revokes what the first issued', async () => {
    const root = await rootMission();
    const created = (await (await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })).json()) as { request_uri: string };
    const key = await DpopKey.generate();
    const first = await redeemChild(service.listenUrl, 'demo-subagent', created.request_uri, key);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as IssuedTokens;
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-subagent', created.request_uri, key), 400, 'invalid_grant');
    await expectRefusal(await refreshTokens(service.listenUrl, { clientId: 'demo-subagent', dpop: key, tokens }), 400, 'invalid_grant');
  });

  it('spec 5 rule 3, DESIGN 2.4: only the named child actor redeems — not the parent, not another client; an unknown request_uri is invalid_grant', async () => {
    const root = await rootMission();
    const created = (await (await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })).json()) as { request_uri: string };
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-agent', created.request_uri, root.dpop), 400, 'invalid_grant');
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-subagent', `${created.request_uri.slice(0, -4)}AAAA`, await DpopKey.generate()), 400, 'invalid_grant');
    await expectRefusal(await redeemChild(service.listenUrl, 'demo-subagent', 'urn:ietf:params:oauth:request_uri:req_AAAAAAAAAAAAAAAAAAAAAA', await DpopKey.generate()), 400, 'invalid_grant');
    // The named child actor still can: the refusals above changed nothing.
    expect((await redeemChild(service.listenUrl, 'demo-subagent', created.request_uri, await DpopKey.generate())).status).toBe(200);
  });

  it('spec 4.1 steps 2 and 5, spec 5 rule 2, DESIGN 2.2: the parent is resolved only from a current parent_token of this client with a proof of its key', async () => {
    const root = await rootMission();
    const other = await rootMission();
    const base = { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS };
    // No DPoP proof, a proof of another key, a proof without ath over parent_token.
    await expectRefusal(await requestChild(service.listenUrl, root, { ...base, proof: null }), 400, 'invalid_dpop_proof');
    await expectRefusal(await requestChild(service.listenUrl, root, { ...base, proof: await other.dpop.proof('POST', `${testBaseUrl}/par`, { accessToken: root.tokens.refresh_token }) }), 400, 'invalid_grant');
    await expectRefusal(await requestChild(service.listenUrl, root, { ...base, proof: await root.dpop.proof('POST', `${testBaseUrl}/par`) }), 400, 'invalid_dpop_proof');
    // A token that is not a grant of ours, and a rotated (no longer current) refresh token.
    await expectRefusal(await requestChild(service.listenUrl, root, { ...base, overrides: { parent_token: 'not-a-token' }, proof: await root.dpop.proof('POST', `${testBaseUrl}/par`, { accessToken: 'not-a-token' }) }), 400, 'invalid_grant');
    const rotated = (await (await refreshTokens(service.listenUrl, other)).json()) as IssuedTokens;
    await expectRefusal(await requestChild(service.listenUrl, other, base), 400, 'invalid_grant');
    // Spec 4.1 step 5 (the requester holds the parent grant): another registered client presenting root's
    // current refresh token with a valid proof of root's key — both stolen — is refused all the same.
    await expectRefusal(await requestChild(service.listenUrl, { ...root, clientId: 'demo-subagent' }, base), 400, 'invalid_grant');
    // None of these resolved a parent: no evidence is filed under either mission (decision 0009).
    expect(await deniedEvidence(root.tokens.mission_id)).toEqual([]);
    expect(await deniedEvidence(other.tokens.mission_id)).toEqual([]);
    expect((await requestChild(service.listenUrl, { ...other, tokens: rotated }, base)).status).toBe(201);
  });

  it('spec 4.1 step 3, spec 7 parent_mismatch: `parent` must name the mission of parent_token; the denial is recorded as evidence', async () => {
    const root = await rootMission();
    const other = await rootMission();
    const body = await expectRefusal(
      await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, overrides: { parent: other.tokens.mission_id } }),
      400, 'invalid_grant', 'parent_mismatch',
    );
    expect(body['error_description']).toBe('parent does not match the mission of parent_token');
    const [evidence] = await deniedEvidence(root.tokens.mission_id);
    expect(evidence).toMatchObject({ decision: 'denied', denial_reason: 'parent_mismatch', parent: { id: root.tokens.mission_id }, child_actor: { sub: 'demo-subagent' }, requested_by: 'demo-agent' });
    expect(evidence!.evidence_id).toMatch(/^dlg_/);
    expect(await deniedEvidence(other.tokens.mission_id)).toEqual([]);
  });

  it('spec 4.1 step 4, spec 7 parent_not_active: a suspended parent creates nothing; after resume it does', async () => {
    const root = await rootMission();
    const lifecycle = (operation: string) => postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation, reason: 'test' });
    expect((await lifecycle('suspend')).status).toBe(200);
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS }), 400, 'invalid_grant', 'parent_not_active');
    expect((await lifecycle('resume')).status).toBe(200);
    expect((await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })).status).toBe(201);
  });

  it.each<[string, unknown, Record<string, unknown>, number, string, string]>([
    ['spec 4.1 step 5/7, spec 2.5 rule 4: a non-delegable parent entry', [{ type: 'mission_resource_access', resource: PAYMENTS, actions: ['payments.read'] }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'delegation_not_permitted'],
    ['spec 4.1 step 6: a child actor that is not a registered client', LEAF_DETAILS, { sub: 'stranger-agent' }, 400, 'invalid_request', 'child_actor_not_allowed'],
    ['spec 4.1 step 6: a registered client not allowed the child creation grant', LEAF_DETAILS, { sub: 'demo-consent-agent' }, 400, 'invalid_request', 'child_actor_not_allowed'],
    ['DESIGN 2.2: a sub_profile the registration does not back', LEAF_DETAILS, { sub: 'demo-subagent', sub_profile: 'operator' }, 400, 'invalid_request', 'child_actor_not_allowed'],
    ['spec 2.2: an iss outside this issuer', LEAF_DETAILS, { sub: 'demo-subagent', iss: 'https://elsewhere.example' }, 400, 'invalid_request', 'child_actor_not_allowed'],
    ['spec 2.4 allowed_child_actors: an actor class the entry does not admit', [{ type: 'mission_resource_access', resource: REPORTS, actions: ['reports.read'] }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'child_actor_not_allowed'],
    ['spec 2.5 rule 2: an action the parent entry lacks', [{ ...LEAF_DETAILS[0], actions: ['invoices.read', 'invoices.delete'] }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
    ['spec 2.5 rule 2: a dropped constraint', [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
    ['spec 2.5 rule 2: a widened constraint', [{ ...LEAF_DETAILS[0], constraints: { max_amount: { value: '500.01', currency: 'EUR' } } }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
    ['spec 2.5 rule 6: a contained resource is not a subset', [{ ...LEAF_DETAILS[0], resource: `${INVOICES}/2026` }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
    ['spec 2.5 rule 3: a broader delegation max_depth', [{ ...CHILD_DETAILS[0], delegation: { ...CHILD_DETAILS[0]!.delegation, max_depth: 3 } }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
    ['spec 2.4 max_child_depth: children not decremented', [{ ...CHILD_DETAILS[0], delegation: { max_depth: 1, children: { max_children: 3, allowed_child_actors: [{ sub_profile: 'ai_agent' }], max_child_depth: 2 } } }], { sub: 'demo-subagent' }, 400, 'invalid_request', 'not_strict_subset'],
  ])('spec 7: %s is refused with its denial reason', async (_what, details, childActor, status, error, reason) => {
    const root = await rootMission();
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor, details }), status, error, reason);
    const [evidence] = await deniedEvidence(root.tokens.mission_id);
    expect(evidence).toMatchObject({ decision: 'denied', denial_reason: reason, cascade_mode: 'immediate' });
    // Spec 2.6: `child` is REQUIRED on denied evidence too — the attempt's identifier, never created, and the requested set's hash.
    expect(evidence!.child).toEqual({ id: expect.stringMatching(/^msn_/), issuer: testBaseUrl, authority_hash: expect.stringMatching(/^sha-256:/) });
    expect(await store.streamRevision(missionStreamName(evidence!.child!.id))).toBe('no_stream');
  });

  it.each<[string, string, number, number]>([
    ['an allow policy with a lifetime bound, within it', 'short-lived', 1_800_000, 201],
    ['an allow policy with a lifetime bound, beyond it', 'short-lived', 5_400_000, 403],
    ['a deny policy', 'frozen', 1_800_000, 403],
    ['a policy this issuer does not know (unenforceable, spec 2.4 rule 1)', 'no-such-policy', 1_800_000, 403],
    ['the built-in allow', 'allow', 1_800_000, 201],
  ])('spec 4.1 step 9, spec 2.4 child_creation_policy: %s', async (_what, policy, lifetimeMs, status) => {
    const details = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { children: { child_creation_policy: policy } } }];
    const root = await rootMission(details, 7_200_000);
    const response = await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }], lifetimeMs });
    if (status === 201) expect(response.status).toBe(201);
    else await expectRefusal(response, 403, 'access_denied', 'policy_denied');
  });

  it('spec 2.4 rule 1: a children control this issuer cannot enforce refuses creation for that entry (policy_denied)', async () => {
    const root = await rootMission([{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { children: { max_grandchildren: 2 } } }]);
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }] }), 403, 'access_denied', 'policy_denied');
  });
});

describe('fan-out and serialization (spec 2.4 rules 2–3, spec 8, DESIGN 2.4)', () => {
  it('spec 2.4 rule 3, DESIGN 2.4: 50 concurrent creations against max_children 3 create exactly 3; the rest are fanout_exceeded, never a 5xx', async () => {
    const root = await rootMission();
    const responses = await Promise.all(Array.from({ length: 50 }, () => requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    const refused = await Promise.all(responses.filter((response) => response.status !== 201).map((response) => response.json() as Promise<Record<string, unknown>>));
    expect(refused).toHaveLength(47);
    for (const body of refused) expect(body).toMatchObject({ error: 'invalid_request', mission_denial_reason: 'fanout_exceeded' });
    const attached = (await collect(store.readStream(missionStreamName(root.tokens.mission_id)))).filter((event) => event.type === 'ChildMissionAttached');
    expect(attached).toHaveLength(3);
    for (const event of attached) expect(event.data).toMatchObject({ parent_entry_indexes: [0], evidence: { decision: 'created', fanout: [{ parent_entry: 0, max_children: 3 }] } });
    const denied = await deniedEvidence(root.tokens.mission_id);
    expect(denied.map((evidence) => evidence.denial_reason)).toEqual(Array(47).fill('fanout_exceeded'));
    // Spec 2.6: fan-out controls apply, so the denied evidence carries the counters that refused it.
    for (const evidence of denied) expect(evidence.fanout).toEqual([{ parent_entry: 0, active_children: 3, max_children: 3 }]);
  });

  it('spec 4.1 step 10, rule 1: a parent revoked while a creation is in flight denies it (parent_not_active), nothing is attached', async () => {
    const root = await rootMission();
    const creations = service.app.get(ChildCreations);
    creations.beforeCommit = async () => {
      creations.beforeCommit = undefined;
      const revoked = await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation: 'revoke', reason: 'race' });
      expect(revoked.status).toBe(200);
    };
    try {
      await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS }), 400, 'invalid_grant', 'parent_not_active');
    } finally {
      creations.beforeCommit = undefined;
    }
    const events = await collect(store.readStream(missionStreamName(root.tokens.mission_id)));
    expect(events.map((event) => event.type)).toEqual(['MissionCreated', 'MissionRevoked']);
  });

  it('spec 4.1 step 10, rule 1, spec 3.2 rule 5: a child committed just before its parent is revoked cannot derive afterwards', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS });
    expect((await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation: 'revoke', reason: 'race' })).status).toBe(200);
    const refused = await expectRefusal(await refreshTokens(service.listenUrl, child), 400, 'invalid_grant');
    expect(refused['mission_error']).toBe('mission_cascaded');
  });
});

describe('evidence and tree of real creations (spec 2.6, 4.1 step 11, 5 rule 7)', () => {
  it('spec 2.6: a created and a denied attempt are both readable at /missions/evidence; the tree shows the child and the fan-out counter', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS, childActor: { sub: 'demo-subagent', sub_profile: 'ai_agent' } });
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'stranger-agent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'child_actor_not_allowed');

    const evidenceResponse = await postAs(service.listenUrl, 'demo-agent', '/missions/evidence', { mission_id: root.tokens.mission_id });
    expect(evidenceResponse.status).toBe(200);
    const { evidence } = (await evidenceResponse.json()) as { evidence: Record<string, unknown>[] };
    const rootHash = authorityHash(testBaseUrl, parseAuthorizationDetails(ROOT_DETAILS));
    expect(evidence).toHaveLength(2);
    expect(evidence[0]).toMatchObject({
      decision: 'created',
      parent: { id: root.tokens.mission_id, issuer: testBaseUrl, authority_hash: rootHash },
      child: { id: child.tokens.mission_id, issuer: testBaseUrl, authority_hash: authorityHash(testBaseUrl, parseAuthorizationDetails(CHILD_DETAILS)) },
      child_actor: { sub: 'demo-subagent', sub_profile: 'ai_agent' },
      attenuation: { result: 'strict_subset', justified_by: [0], approved_expires_at: child.tokens.mission_expires_at },
      fanout: [{ parent_entry: 0, active_children: 1, max_children: 3 }],
      cascade_mode: 'immediate',
      approval_basis: 'policy:parent_authority',
    });
    expect(evidence[1]).toMatchObject({ decision: 'denied', denial_reason: 'child_actor_not_allowed', child_actor: { sub: 'stranger-agent' } });
    expect(evidence[0]!['evidence_id']).toBe(child.tokens.parent!['delegation_id']);

    const treeResponse = await postAs(service.listenUrl, 'demo-agent', '/missions/tree', { mission_id: root.tokens.mission_id });
    expect(treeResponse.status).toBe(200);
    const tree = (await treeResponse.json()) as { nodes: Record<string, unknown>[] };
    expect(tree.nodes.map((node) => node['mission_id'])).toEqual([root.tokens.mission_id, child.tokens.mission_id]);
    expect(tree.nodes[0]).toMatchObject({ depth: 0, fanout: [{ parent_entry: 0, active_children: 1, max_children: 3 }, { parent_entry: 2, active_children: 0 }] });
    expect(tree.nodes[1]).toMatchObject({ parent_id: root.tokens.mission_id, client_id: 'demo-subagent', depth: 1, cascade_mode: 'immediate', state: 'active' });

    // Spec 5 rule 7, DESIGN 2.1: the child actor cannot read its parent's evidence (not its mission, not a descendant of its missions).
    const stranger = await postAs(service.listenUrl, 'demo-subagent', '/missions/evidence', { mission_id: root.tokens.mission_id });
    expect(stranger.status).toBe(404);
  });
});

describe('generations (spec 2.3 rule 2, 2.4 max_child_depth, 3.2 rule 5)', () => {
  it('a child creates a grandchild (parent.depth 2); an entry at the depth limit carries no children; a suspended root stops derivation two generations down', async () => {
    const root = await rootMission();
    const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS });
    const grandchild = await obtainChildMission(service.listenUrl, child, 'demo-worker', { details: LEAF_DETAILS });
    expect(grandchild.tokens.parent).toMatchObject({ id: child.tokens.mission_id, depth: 2 });
    // The grandchild's entry carries no children: it cannot delegate further.
    await expectRefusal(await requestChild(service.listenUrl, grandchild, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS }), 400, 'invalid_request', 'delegation_not_permitted');

    const lifecycle = (operation: string) => postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation, reason: 'test' });
    expect((await lifecycle('suspend')).status).toBe(200);
    const refused = await expectRefusal(await refreshTokens(service.listenUrl, grandchild), 400, 'invalid_grant');
    expect(refused['mission_error']).toBe('mission_suspended');
    await expectRefusal(await requestChild(service.listenUrl, child, { childActor: { sub: 'demo-agent' }, details: LEAF_DETAILS }), 400, 'invalid_grant', 'parent_not_active');
    expect((await lifecycle('resume')).status).toBe(200);
    expect((await refreshTokens(service.listenUrl, grandchild)).status).toBe(200);
  });
});

describe('malformed child creation input is a 4xx, never a 5xx (spec 4.1, 7)', () => {
  it.each<[string, Record<string, string>]>([
    ['child_actor that is not JSON', { child_actor: '{"sub":' }],
    ['child_actor with a duplicate member', { child_actor: '{"sub":"demo-subagent","sub":"demo-agent"}' }],
    ['child_actor without sub', { child_actor: '{"sub_profile":"ai_agent"}' }],
    ['child_actor with a member outside spec 2.2', { child_actor: '{"sub":"demo-subagent","role":"admin"}' }],
    ['child_actor that is an array', { child_actor: '["demo-subagent"]' }],
    ['parent that is not a mission_id', { parent: 'root-mission' }],
    ['no parent', { parent: '' }],
    ['no child_actor', { child_actor: '' }],
    ['an oversized parent_token', { parent_token: 'x'.repeat(300) }],
    ['an experimental cascade_mode that is not enabled', { cascade_mode: 'bounded_staleness' }],
    ['an unknown cascade_mode', { cascade_mode: 'eventually' }],
    ['a request_uri parameter (RFC 9126 §2.1)', { request_uri: 'urn:ietf:params:oauth:request_uri:x' }],
  ])('PAR child creation with %s → invalid_request', async (_what, overrides) => {
    const root = await rootMission();
    await expectRefusal(await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, overrides }), 400, 'invalid_request');
  });

  it('spec 4.1 rule 2, spec 7: parent_token on the front channel (/authorize) is invalid_request', async () => {
    const response = await fetch(`${service.listenUrl}/authorize?${new URLSearchParams({ client_id: 'demo-agent', request_uri: 'urn:ietf:params:oauth:request_uri:req_AAAAAAAAAAAAAAAAAAAAAA', parent_token: 'x' }).toString()}`, { redirect: 'manual' });
    const body = await expectRefusal(response, 400, 'invalid_request');
    expect(body['error_description']).toMatch(/parent_token must be sent only to the pushed authorization request endpoint/);
  });

  it('redemption without a request_uri, with a root request_uri, or without DPoP is a 4xx', async () => {
    const send = (form: Record<string, string>, headers: Record<string, string> = {}) => postAs(service.listenUrl, 'demo-subagent', '/token', { grant_type: 'urn:ietf:params:oauth:grant-type:mission-child-creation', ...form }, headers);
    await expectRefusal(await send({}), 400, 'invalid_request');
    await expectRefusal(await send({ request_uri: 'urn:ietf:params:oauth:request_uri:req_AAAAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_grant');
    const root = await rootMission();
    const created = (await (await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS })).json()) as { request_uri: string };
    await expectRefusal(await send({ request_uri: created.request_uri }), 400, 'invalid_dpop_proof');
  });
});
