import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPkcePair, DpopKey } from '@mission/mission-client';
import type { RunningService } from '@mission/platform';
import {
  DEMO_REDIRECT_URI, missionIntent, obtainChildMission, obtainRootMission, postAs, redeemChild, requestChild, type MissionHolder,
} from '../testing/mission-flows.js';
import { startIssuer } from '../testing/run-issuer.js';

let dataDir: string;
let service: RunningService;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'issuer-child-refusals-'));
  ({ service } = await startIssuer(dataDir));
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

const INVOICES = 'https://erp.example.com/invoices';
/** Delegable for two generations, so a grandchild can be created under the child. */
const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 2, children: { max_children: 3, max_child_depth: 2 } } },
];
const CHILD_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_children: 3, max_child_depth: 1 } } },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

async function errorOf(response: Response, status: number, error: string): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, error: body['error'] }).toEqual({ status, error });
  expect(response.headers.get('cache-control')).toBe('no-store');
  return body;
}

/** A creation the parent made and has not yet conveyed: the child actor holds only its request_uri. */
async function unredeemed(parent: MissionHolder, childClientId: string): Promise<string> {
  const created = await requestChild(service.listenUrl, parent, { childActor: { sub: childClientId }, details: LEAF_DETAILS });
  expect(created.status).toBe(201);
  return ((await created.json()) as { request_uri: string }).request_uri;
}

const lifecycle = (root: MissionHolder, operation: string) =>
  postAs(service.listenUrl, 'demo-agent', '/missions/lifecycle', { mission_id: root.tokens.mission_id, operation, reason: `test ${operation}` });

/**
 * Root → child (redeemed, may delegate once more) → two unredeemed creations: one directly under the root
 * (the non-active mission is the parent) and a grandchild under the child (the non-active mission is an
 * ancestor above the parent, which is itself active on its own stream).
 */
async function lineageWithPendingRedemptions(): Promise<{ root: MissionHolder; underRoot: string; underChild: string }> {
  const root = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
  const child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS });
  return { root, underRoot: await unredeemed(root, 'demo-subagent'), underChild: await unredeemed(child, 'demo-worker') };
}

describe('child redemption under a non-active ancestor (spec 3.2 rule 5, 4.2, DESIGN 2.4)', () => {
  it('spec 3.2 rule 5, 4.2, DESIGN 2.4: redemption is refused (mission_suspended) while the parent or any ancestor is suspended; the grant is untouched and redeems after resume', async () => {
    const { root, underRoot, underChild } = await lineageWithPendingRedemptions();
    expect((await lifecycle(root, 'suspend')).status).toBe(200);
    for (const [clientId, requestUri] of [['demo-subagent', underRoot], ['demo-worker', underChild]] as const) {
      const refused = await errorOf(await redeemChild(service.listenUrl, clientId, requestUri, await DpopKey.generate()), 400, 'invalid_grant');
      expect(refused['mission_error']).toBe('mission_suspended');
    }
    // The refusal came from the lineage alone: nothing was consumed, so both redeem once the root resumes.
    expect((await lifecycle(root, 'resume')).status).toBe(200);
    expect((await redeemChild(service.listenUrl, 'demo-subagent', underRoot, await DpopKey.generate())).status).toBe(200);
    expect((await redeemChild(service.listenUrl, 'demo-worker', underChild, await DpopKey.generate())).status).toBe(200);
  });

  it('spec 3.2 rule 5, 4.2, DESIGN 2.4: redemption is refused (mission_cascaded) once the parent or any ancestor is revoked', async () => {
    const { root, underRoot, underChild } = await lineageWithPendingRedemptions();
    expect((await lifecycle(root, 'revoke')).status).toBe(200);
    for (const [clientId, requestUri] of [['demo-subagent', underRoot], ['demo-worker', underChild]] as const) {
      const refused = await errorOf(await redeemChild(service.listenUrl, clientId, requestUri, await DpopKey.generate()), 400, 'invalid_grant');
      expect(refused['mission_error']).toBe('mission_cascaded');
    }
  });
});

describe('parent_token on the front channel (spec 4.1 rule 2, spec 7)', () => {
  /** A pending root request of the consent client, its consent page rendered: a complete, valid decision form and its CSRF cookie. */
  async function consentDecision(): Promise<{ form: Record<string, string>; cookie: string }> {
    const pkce = createPkcePair();
    const pushed = await postAs(service.listenUrl, 'demo-consent-agent', '/par', {
      response_type: 'code', redirect_uri: DEMO_REDIRECT_URI, code_challenge: pkce.challenge, code_challenge_method: 'S256',
      mission_intent: missionIntent(3_600_000), authorization_details: JSON.stringify(LEAF_DETAILS),
    });
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const page = await fetch(`${service.listenUrl}/authorize?${new URLSearchParams({ client_id: 'demo-consent-agent', request_uri: requestUri }).toString()}`, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    return { form: { client_id: 'demo-consent-agent', request_uri: requestUri, csrf_token: csrf, person: 'alice', password: 'alice-demo-password', decision: 'approve' }, cookie };
  }

  const decide = (form: Record<string, string>, cookie: string): Promise<Response> =>
    fetch(`${service.listenUrl}/authorize/decision`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      body: new URLSearchParams(form).toString(),
    });

  it('spec 4.1 rule 2, spec 7: parent_token on the front channel (POST /authorize/decision) is invalid_request, even on an otherwise valid approval', async () => {
    const { form, cookie } = await consentDecision();
    // A real, current parent grant: the refusal must not depend on the token being bogus.
    const parent = await obtainRootMission(service.listenUrl, { details: ROOT_DETAILS });
    const refused = await decide({ ...form, parent_token: parent.tokens.refresh_token }, cookie);
    expect(refused.headers.get('location')).toBeNull();
    const body = await errorOf(refused, 400, 'invalid_request');
    expect(body['error_description']).toMatch(/parent_token must be sent only to the pushed authorization request endpoint/);
    // Refused before anything was decided: the same form without parent_token still approves.
    const approved = await decide(form, cookie);
    expect(approved.status).toBe(302);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toMatch(/.+/);
  });
});
