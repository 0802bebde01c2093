import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { EventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { missionStreamName } from '@mission/issuer-domain';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import {
  obtainChildMission, obtainRootMission, postAs, refreshTokens, requestChild, type IssuedTokens, type MissionHolder,
} from '../testing/mission-flows.js';
import { demoConfigFile, startIssuer, testBaseUrl } from '../testing/run-issuer.js';
import { expectRefusal } from '../testing/expect-refusal.js';

/**
 * Issue 4 item I8 (spec 3.3, DESIGN 2.4): the experimental cascade modes are accepted only where the
 * deployment lists them in `child_missions.experimental_cascade_modes`. Two issuers run side by side:
 * `enabled` with a CONFIG_FILE that lists `bounded_staleness` (and only it), `shipped` with the demo
 * configuration, which lists none — so the same request is compared under both.
 */
let workDir: string;
let enabled: RunningService;
let shipped: RunningService;
let enabledStore: EventStore;
let shippedStore: EventStore;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'issuer-cascade-modes-'));
  const config = JSON.parse(readFileSync(demoConfigFile, 'utf8')) as { child_missions: Record<string, unknown> };
  config.child_missions['experimental_cascade_modes'] = ['bounded_staleness'];
  const configFile = join(workDir, 'issuer.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  ({ service: enabled } = await startIssuer(join(workDir, 'enabled'), { CONFIG_FILE: configFile }));
  ({ service: shipped } = await startIssuer(join(workDir, 'shipped')));
  enabledStore = enabled.app.get(EVENT_STORE);
  shippedStore = shipped.app.get(EVENT_STORE);
});
afterAll(async () => {
  await enabled?.stop('tests finished');
  await shipped?.stop('tests finished');
  rmSync(workDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
const ROOT_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { children: { max_children: 3 } } }];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];
const BOUNDED = { cascade_mode: 'bounded_staleness' };


async function eventTypes(store: EventStore, missionId: string): Promise<string[]> {
  return (await collect(store.readStream(missionStreamName(missionId)))).map((event) => event.type);
}

const lifecycle = (service: RunningService, root: MissionHolder, operation: string) =>
  postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation, reason: `test ${operation}` });

describe('experimental cascade modes only where the deployment enables them (spec 3.3, DESIGN 2.4, issue 4 item I8)', () => {
  it('spec 3.3, DESIGN 2.4: with bounded_staleness enabled, a child created with it records it — parent.cascade_mode on the record, the tokens, Mission Status and the tree, cascade_mode in the evidence', async () => {
    const root = await obtainRootMission(enabled.listenUrl, { details: ROOT_DETAILS });
    const child = await obtainChildMission(enabled.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS, overrides: BOUNDED });

    // The child's own record (spec 2.1 "cascade mode", 2.3 parent.cascade_mode).
    const [created] = await collect(enabledStore.readStream(missionStreamName(child.tokens.mission_id)));
    expect(created).toMatchObject({ type: 'MissionCreated', data: { parent: { id: root.tokens.mission_id, cascade_mode: 'bounded_staleness' } } });
    // The token response and the access token's mission claim (spec 2.3 rule 3).
    expect(child.tokens.parent).toMatchObject({ id: root.tokens.mission_id, depth: 1, cascade_mode: 'bounded_staleness' });
    const jwks = createRemoteJWKSet(new URL(`${enabled.listenUrl}/jwks`));
    const { payload } = await jwtVerify(child.tokens.access_token, jwks, { issuer: testBaseUrl, typ: 'at+jwt' });
    expect(payload['mission']).toMatchObject({ id: child.tokens.mission_id, parent: { id: root.tokens.mission_id, cascade_mode: 'bounded_staleness' } });

    // Spec 2.6: the created evidence names the mode.
    const evidence = await postAs(enabled.listenUrl, 'demo-agent', '/missions/evidence', { mission_id: root.tokens.mission_id });
    expect(evidence.status).toBe(200);
    expect(((await evidence.json()) as { evidence: Record<string, unknown>[] }).evidence).toEqual([
      expect.objectContaining({ decision: 'created', child: expect.objectContaining({ id: child.tokens.mission_id }), cascade_mode: 'bounded_staleness' }),
    ]);

    // Spec 2.7: the Mission Status parent projection carries the mode.
    const status = await postAs(enabled.listenUrl, 'demo-agent', '/missions/status', { mission_id: child.tokens.mission_id });
    expect(status.status).toBe(200);
    const statusClaims = (await jwtVerify(await status.text(), jwks, { issuer: testBaseUrl, audience: 'demo-agent' })).payload;
    expect(statusClaims['mission']).toMatchObject({ id: child.tokens.mission_id, state: 'active', parent: { id: root.tokens.mission_id, state: 'active', cascade_mode: 'bounded_staleness' } });

    const tree = await postAs(enabled.listenUrl, 'demo-agent', '/missions/tree', { mission_id: root.tokens.mission_id });
    expect(tree.status).toBe(200);
    expect(((await tree.json()) as { nodes: Record<string, unknown>[] }).nodes[1]).toMatchObject({ mission_id: child.tokens.mission_id, cascade_mode: 'bounded_staleness' });

    // The mode is fixed at creation: a refresh carries the same parent member.
    const refreshed = await refreshTokens(enabled.listenUrl, child);
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as IssuedTokens).parent).toEqual(child.tokens.parent);
  });

  it('spec 3.3, DESIGN 2.4: without the configuration (the shipped demo config enables no experimental mode) the same request is invalid_request and creates nothing', async () => {
    const root = await obtainRootMission(shipped.listenUrl, { details: ROOT_DETAILS });
    const body = await expectRefusal(await requestChild(shipped.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, overrides: BOUNDED }), 400, 'invalid_request');
    expect(body['error_description']).toBe('cascade_mode bounded_staleness is experimental and not enabled at this issuer');
    // Spec 4.1: a failure prevents creation — nothing is attached to the parent.
    expect(await eventTypes(shippedStore, root.tokens.mission_id)).toEqual(['MissionCreated']);
    // The refusal left the parent grant usable: the same request without the mode creates an immediate child.
    const child = await obtainChildMission(shipped.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS });
    expect(child.tokens.parent).toMatchObject({ cascade_mode: 'immediate' });
  });

  it('spec 3.3: enablement is per mode — status_required, not listed, is refused where bounded_staleness is enabled', async () => {
    const root = await obtainRootMission(enabled.listenUrl, { details: ROOT_DETAILS });
    const body = await expectRefusal(
      await requestChild(enabled.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, overrides: { cascade_mode: 'status_required' } }),
      400, 'invalid_request',
    );
    expect(body['error_description']).toBe('cascade_mode status_required is experimental and not enabled at this issuer');
    expect(await eventTypes(enabledStore, root.tokens.mission_id)).toEqual(['MissionCreated']);
  });

  it('spec 3.2 rule 5, 3.3: a bounded_staleness child derives only while its parent is active — the issuer\'s own derivation check does not read the mode', async () => {
    const root = await obtainRootMission(enabled.listenUrl, { details: ROOT_DETAILS });
    const child = await obtainChildMission(enabled.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS, overrides: BOUNDED });
    let current = child;
    const refresh = async (): Promise<Response> => {
      const response = await refreshTokens(enabled.listenUrl, current);
      // A successful refresh rotates the refresh token; keep the current one for the next attempt.
      if (response.status === 200) current = { ...current, tokens: (await response.clone().json()) as IssuedTokens };
      return response;
    };

    expect((await lifecycle(enabled, root, 'suspend')).status).toBe(200);
    expect((await expectRefusal(await refresh(), 400, 'invalid_grant'))['mission_error']).toBe('mission_suspended');
    expect((await lifecycle(enabled, root, 'resume')).status).toBe(200);
    expect((await refresh()).status).toBe(200);
    // "A child MUST NOT derive after the parent is known non-active": no staleness window at the issuer.
    expect((await lifecycle(enabled, root, 'revoke')).status).toBe(200);
    expect((await expectRefusal(await refresh(), 400, 'invalid_grant'))['mission_error']).toBe('mission_cascaded');
  });
});

describe('status_required compensation (spec 3.3: the issuer cannot know every audience checks parent state)', () => {
  let dir: string;
  let issuer: RunningService;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'issuer-status-required-'));
    const config = JSON.parse(readFileSync(demoConfigFile, 'utf8')) as Record<string, unknown> & { child_missions: Record<string, unknown> };
    config.child_missions['experimental_cascade_modes'] = ['status_required'];
    config['access_token_ttl_seconds'] = 300;
    config['mission_max_stale_seconds'] = 45;
    const configFile = join(dir, 'issuer.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    ({ service: issuer } = await startIssuer(join(dir, 'data'), { CONFIG_FILE: configFile }));
  });
  afterAll(async () => {
    await issuer?.stop('tests finished');
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 3.3 status_required: child tokens live no longer than the status freshness window (45 s), on redemption and refresh; the root keeps the configured 300 s', async () => {
    const root = await obtainRootMission(issuer.listenUrl, { details: ROOT_DETAILS });
    expect(root.tokens.expires_in).toBeGreaterThan(250);
    const child = await obtainChildMission(issuer.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS, overrides: { cascade_mode: 'status_required' } });
    expect(child.tokens.parent).toMatchObject({ cascade_mode: 'status_required' });
    expect(child.tokens.expires_in).toBeLessThanOrEqual(45);
    const jwks = createRemoteJWKSet(new URL(`${issuer.listenUrl}/jwks`));
    const { payload } = await jwtVerify(child.tokens.access_token, jwks, { issuer: testBaseUrl, typ: 'at+jwt' });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(45);
    const refreshed = (await (await refreshTokens(issuer.listenUrl, child)).json()) as IssuedTokens;
    expect(refreshed.expires_in).toBeLessThanOrEqual(45);
  });
});
