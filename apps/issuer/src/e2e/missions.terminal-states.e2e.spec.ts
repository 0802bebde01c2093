import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { missionStreamName } from '@mission/issuer-domain';
import { issueAccessToken, type AccessTokenPayload } from '@mission/issuer-oauth';
import { EVENT_STORE, SigningKeys, type RunningService } from '@mission/platform';
import { ChildrenBackgroundWork } from '../background/children-background.js';
import { obtainChildMission, obtainRootMission, postAs, requestChild, type MissionHolder } from '../testing/mission-flows.js';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

/*
 * Spec 3.1, 3.2 (decision 0020) over HTTP: a terminal state, once reported, never changes on Mission
 * Status, introspection or /missions/tree — a cascaded child stays `cascaded` after its own `expires_at`;
 * only a projected `suspended` yields to the child's own expiry (missions.children.status.e2e.spec.ts), and a
 * child whose own expiry came before its parent ended is `expired`. Children live a few seconds of real
 * time: the tests wait (by condition) for their `expires_at` to pass; nothing races a timer.
 */

let dataDir: string;
let service: RunningService;
let store: EventStore;
let background: ChildrenBackgroundWork;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-terminal-states-'));
  ({ service } = await startIssuer(dataDir));
  store = service.app.get(EVENT_STORE);
  background = service.app.get(ChildrenBackgroundWork);
});
afterEach(() => {
  background.beforeCascade = undefined;
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_children: 3, max_child_depth: 1 } } },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const events = (missionId: string): Promise<RecordedEvent[]> => collect(store.readStream(missionStreamName(missionId)));
const terminalEvents = async (missionId: string): Promise<RecordedEvent[]> =>
  (await events(missionId)).filter((event) => ['MissionExpired', 'MissionCascaded', 'MissionRevoked', 'MissionCompleted'].includes(event.type));
const child = (root: MissionHolder, lifetimeMs: number): Promise<MissionHolder> =>
  obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS, lifetimeMs });
/** Waits until the mission's own `expires_at` (as issued) is past. */
const pastExpiry = async (holder: MissionHolder): Promise<void> => {
  const expiresAt = Date.parse(holder.tokens.mission_expires_at);
  await eventually(async () => Date.now() > expiresAt + 50);
};

async function revoke(root: MissionHolder): Promise<number> {
  const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation: 'revoke', reason: 'done' });
  expect(reply.status).toBe(200);
  const revoked = (await events(root.tokens.mission_id)).find((event) => event.type === 'MissionRevoked')!;
  return Date.parse(String(revoked.data['occurred_at']));
}

async function status(missionId: string): Promise<string> {
  const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/status', { mission_id: missionId });
  expect(reply.status).toBe(200);
  const { payload } = await jwtVerify(await reply.text(), createRemoteJWKSet(new URL(`${service.listenUrl}/jwks`)), { issuer: testBaseUrl, audience: 'demo-agent' });
  return String((payload['mission'] as Record<string, unknown>)['state']);
}

/**
 * The issuer's tokens never outlive their mission (DESIGN 2.3), so after the child's own expires_at its real
 * access token introspects as `{"active": false}` alone. To see what introspection reports for the mission
 * then, the test signs a token like the child's with the issuer's key but a later `exp`.
 */
async function outlivingToken(holder: MissionHolder): Promise<string> {
  const [, payload] = holder.tokens.access_token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as AccessTokenPayload;
  const { accessToken } = await issueAccessToken(
    {
      issuer: testBaseUrl, subject: claims.sub, audience: claims.aud as string[], clientId: claims.client_id, jkt: claims.cnf.jkt,
      authorizationDetails: claims.authorization_details, mission: claims.mission, missionExpiresAt: new Date(Date.now() + 3_600_000), issuedAt: new Date(), ttlSeconds: 300,
    },
    service.app.get(SigningKeys),
  );
  return accessToken;
}

async function introspected(holder: MissionHolder, token?: string): Promise<unknown> {
  const reply = await postAs(service.listenUrl, 'demo-agent', '/introspect', { token: token ?? (await outlivingToken(holder)) });
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { active: boolean; mission?: { state?: string } };
  return { active: body.active, state: body.mission?.state };
}

async function treeStates(root: MissionHolder): Promise<Record<string, string>> {
  const reply = await postAs(service.listenUrl, 'demo-agent', '/missions/tree', { mission_id: root.tokens.mission_id });
  expect(reply.status).toBe(200);
  const { nodes } = (await reply.json()) as { nodes: { mission_id: string; state: string }[] };
  return Object.fromEntries(nodes.map((node) => [node.mission_id, node.state]));
}

/** Status, introspection and the tree, for one child under `root`. */
async function surfaces(root: MissionHolder, holder: MissionHolder) {
  return { status: await status(holder.tokens.mission_id), introspection: await introspected(holder), tree: (await treeStates(root))[holder.tokens.mission_id] };
}

describe('spec 3.1, 3.2 (decision 0020): a recorded or reported terminal state never changes on status, introspection or the tree', () => {
  it('spec 3.1: a child cascaded before its own expires_at is still cascaded after it; spec 3.2: one that expired before its parent ended is expired', async () => {
    const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    // Created, not redeemed (a redemption needs a whole second of mission left for its token).
    expect((await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, lifetimeMs: 3_000 })).status).toBe(201);
    const earlyId = String((await events(root.tokens.mission_id)).find((event) => event.type === 'ChildMissionAttached')!.data['child_mission_id']);
    // 3 s for the early child's expires_at (its /par must arrive before it), then 12 s for this one to outlive the revoke.
    const late = await child(root, 12_000);
    const earlyExpiresAt = Date.parse(String((await events(earlyId)).find((event) => event.type === 'MissionCreated')!.data['expires_at']));
    await eventually(async () => Date.now() > earlyExpiresAt + 50);
    const revokedAt = await revoke(root);
    // The precondition the test relies on: the parent ended before the late child's own expires_at.
    expect(revokedAt).toBeLessThan(Date.parse(late.tokens.mission_expires_at));
    await eventually(async () => (await terminalEvents(late.tokens.mission_id)).length > 0 && (await terminalEvents(earlyId)).length > 0);
    expect(await surfaces(root, late)).toEqual({ status: 'cascaded', introspection: { active: false, state: 'cascaded' }, tree: 'cascaded' });

    expect(await introspected(late, late.tokens.access_token)).toEqual({ active: false, state: 'cascaded' });

    await pastExpiry(late);
    expect(await surfaces(root, late)).toEqual({ status: 'cascaded', introspection: { active: false, state: 'cascaded' }, tree: 'cascaded' });
    // Its real token has expired with the mission: introspection says inactive and no more (RFC 7662).
    expect(await introspected(late, late.tokens.access_token)).toEqual({ active: false, state: undefined });
    expect({ status: await status(earlyId), tree: (await treeStates(root))[earlyId] }).toEqual({ status: 'expired', tree: 'expired' });
    expect(await status(root.tokens.mission_id)).toBe('revoked');
    expect((await terminalEvents(late.tokens.mission_id)).map((event) => event.type)).toEqual(['MissionCascaded']);
    expect((await terminalEvents(earlyId)).map((event) => event.type)).toEqual(['MissionExpired']);
  }, 60_000);

  it('spec 3.1, 3.2: a cascade not yet recorded when the child\'s expires_at passes stays cascaded, and is recorded as cascaded (effective when the parent ended), never expired', async () => {
    const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    let releaseCascade!: () => void;
    const held = new Promise<void>((resolve) => (releaseCascade = resolve));
    background.beforeCascade = async (parentId) => (parentId === root.tokens.mission_id ? held : undefined);
    try {
      const holder = await child(root, 5_000);
      const revokedAt = await revoke(root);
      expect(revokedAt).toBeLessThan(Date.parse(holder.tokens.mission_expires_at));
      expect(await surfaces(root, holder)).toEqual({ status: 'cascaded', introspection: { active: false, state: 'cascaded' }, tree: 'cascaded' });

      await pastExpiry(holder);
      expect(await surfaces(root, holder)).toEqual({ status: 'cascaded', introspection: { active: false, state: 'cascaded' }, tree: 'cascaded' });
      // The expiry process manager gets there first (the cascade is held): it records the cascade, not an expiry.
      await eventually(async () => (await terminalEvents(holder.tokens.mission_id)).length > 0);
      const [recorded] = await terminalEvents(holder.tokens.mission_id);
      expect({ type: recorded!.type, ...recorded!.data }).toMatchObject({
        type: 'MissionCascaded', state: 'cascaded', actor: { id: 'issuer:mission-expiry' }, trigger: { mission_id: root.tokens.mission_id, state: 'revoked' },
        effective_at: new Date(revokedAt).toISOString(),
      });
      expect(await surfaces(root, holder)).toEqual({ status: 'cascaded', introspection: { active: false, state: 'cascaded' }, tree: 'cascaded' });
    } finally {
      releaseCascade();
    }
    await eventually(async () => (await collect(store.readStream(`pm_mission_cascade-${root.tokens.mission_id}`))).some((event) => event.type === 'WorkCompleted'));
    expect((await terminalEvents((await events(root.tokens.mission_id)).find((event) => event.type === 'ChildMissionAttached')!.data['child_mission_id'] as string)).map((event) => event.type)).toEqual(['MissionCascaded']);
  });
});
