import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateSigningKey, IssuerClient } from '@mission/mission-client';
import type { RunningService } from '@mission/platform';
import { launchChromium, routedContext, screenshot, watchIncidents } from '@mission/platform/testing';
import { obtainChildMission, obtainRootMission, postAs, requestChild, type MissionHolder } from '../testing/mission-flows.js';
import { demoConfigFile, repositoryRoot, startIssuer, testBaseUrl } from '../testing/run-issuer.js';

/**
 * Issue 17 / ADR 0042: the issuer's operator view in a real headless Chromium (ADR 0041). The page's origin is the
 * issuer's BASE_URL (`http://issuer.test`), routed to the in-process service, so the `private_key_jwt` assertions
 * the browser signs name the audience the issuer checks. One browser for the file; each operator a fresh context.
 */
const SLOW = 120_000;
const INVOICES = 'https://erp.example.com/invoices';
const PAYMENTS = 'https://erp.example.com/payments';
const HOSTILE = `<script>window.__xss = 'script'</script>"><img src=x onerror="window.__xss = 'img'">`;
const ROOT_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 2, children: { max_children: 5, max_child_depth: 2 } } },
];
const CHILD_DETAILS = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 1, children: { max_children: 2, max_child_depth: 1 } } },
];
const LEAF_DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

const dataDir = mkdtempSync(join(tmpdir(), 'issuer-operator-'));
let service: RunningService;
let browser: Browser;
const contexts: BrowserContext[] = [];
/** An operator client with `audit` only (approved by policy): it may look at trees of its lineage, never change a mission. */
const AUDITOR = 'ops-auditor';
let auditorKey: JWK;

const demoKey = (clientId: string): JWK =>
  clientId === AUDITOR ? auditorKey : (JSON.parse(readFileSync(join(repositoryRoot, 'config/demo-keys', `issuer-client-${clientId}.private.jwk.json`), 'utf8')) as JWK);

/** The demo configuration plus the auditor client, registered with a key made for this run. */
async function configWithAuditor(): Promise<string> {
  const key = await generateSigningKey('ES256', { exportPrivate: true });
  auditorKey = key.privateJwk!;
  const config = JSON.parse(readFileSync(demoConfigFile, 'utf8')) as { clients: Record<string, unknown>[] };
  config.clients.push({
    client_id: AUDITOR, jwks: { keys: [{ ...key.publicJwk, kid: key.jkt, alg: 'ES256', use: 'sig' }] }, sub_profile: 'ai_agent',
    redirect_uris: ['http://127.0.0.1:9000/cb'], grant_types: ['authorization_code', 'refresh_token'], approval_policy: 'auto', permissions: ['audit'],
  });
  const file = join(dataDir, 'issuer.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The states `/missions/tree` reports, read over the API as `reader` (demo-agent: the root's client, with `audit`). */
async function treeStates(rootId: string, reader = 'demo-agent'): Promise<Record<string, string>> {
  const response = await postAs(service.listenUrl, reader, '/missions/tree', { mission_id: rootId });
  const { nodes } = (await response.json()) as { nodes: { mission_id: string; state: string }[] };
  return Object.fromEntries(nodes.map((node) => [node.mission_id, node.state]));
}

/** A root mission of the auditor client, obtained with the SDK as any client would (its key is not a demo key file). */
async function auditorRootMission(): Promise<string> {
  const routed = ((input: string | URL | Request, init?: RequestInit) => fetch(String(input instanceof Request ? input.url : input).replace(testBaseUrl, service.listenUrl), init)) as typeof fetch;
  const issuer = await IssuerClient.discover({ issuer: testBaseUrl, clientId: AUDITOR, clientKey: auditorKey, fetch: routed, allowInsecureHttp: true });
  const mission = await issuer.obtainRootMission({
    intent: { goal: 'Audit the invoices', resources: [INVOICES], expiresAt: new Date(Date.now() + 3_600_000) },
    authorizationDetails: [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }],
    redirectUri: 'http://127.0.0.1:9000/cb',
  });
  return mission.id;
}

async function lifecycle(clientId: string, missionId: string, operation: string): Promise<void> {
  const response = await postAs(service.listenUrl, clientId, '/missions/lifecycle', { mission_id: missionId, operation, reason: `test ${operation}` });
  if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${await response.text()}`);
}

/** An operator's page with the client's private JWK imported through the form, as a person would. */
async function operatorPage(clientId: string, missionId: string): Promise<Page> {
  const context = await routedContext(browser, testBaseUrl, () => service.listenUrl);
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${testBaseUrl}/operator#mission=${missionId}`);
  await page.getByLabel(/^client_id/).fill(clientId);
  await page.getByLabel(/private JWK/).fill(JSON.stringify(demoKey(clientId)));
  await page.getByRole('button', { name: 'Import key' }).click();
  await page.locator('#key-client', { hasText: clientId }).waitFor();
  return page;
}

/** The state each box of the picture shows, by mission id. */
const pictured = (page: Page): Promise<Record<string, string>> =>
  page.locator('#tree g.node').evaluateAll((nodes) => Object.fromEntries(nodes.map((node) => [node.getAttribute('data-mission'), node.getAttribute('data-state')])));

beforeAll(async () => {
  ({ service } = await startIssuer(dataDir, { CONFIG_FILE: await configWithAuditor() }));
  browser = await launchChromium([testBaseUrl]);
}, SLOW);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await service?.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('issue 17: the issuer operator view in Chromium (ADR 0042)', () => {
  let root: MissionHolder;
  let child: MissionHolder;
  let grandchild: MissionHolder;
  let suspended: MissionHolder;
  let revoked: MissionHolder;
  let expiredId: string;

  beforeAll(async () => {
    // A tree with every state: active (root, child, grandchild), suspended, revoked, expired; then a denied request.
    root = await obtainRootMission(service.listenUrl, { clientId: 'demo-agent', details: ROOT_DETAILS });
    child = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: CHILD_DETAILS, childActor: { sub: 'demo-subagent', sub_profile: 'ai_agent' } });
    grandchild = await obtainChildMission(service.listenUrl, child, 'demo-worker', { details: LEAF_DETAILS });
    suspended = await obtainChildMission(service.listenUrl, root, 'demo-worker', { details: LEAF_DETAILS });
    await lifecycle('demo-agent', suspended.tokens.mission_id, 'suspend');
    revoked = await obtainChildMission(service.listenUrl, root, 'demo-subagent', { details: LEAF_DETAILS });
    await lifecycle('demo-agent', revoked.tokens.mission_id, 'revoke');
    // Created, not redeemed (a redemption needs a whole second of mission left): it expires on its own.
    const before = new Set(Object.keys(await treeStates(root.tokens.mission_id)));
    expect((await requestChild(service.listenUrl, root, { childActor: { sub: 'demo-subagent' }, details: LEAF_DETAILS, lifetimeMs: 3_000 })).status).toBe(201);
    expiredId = Object.keys(await treeStates(root.tokens.mission_id)).find((id) => !before.has(id))!;
    expect((await requestChild(service.listenUrl, root, { childActor: { sub: HOSTILE }, details: [{ type: 'mission_resource_access', resource: PAYMENTS, actions: ['pay'] }] })).status).toBe(400);
    await eventually(async () => (await treeStates(root.tokens.mission_id))[expiredId] === 'expired');
  }, SLOW);

  it('GET /operator is served by the issuer with a strict CSP (no inline script, no other origin)', async () => {
    const response = await fetch(`${service.listenUrl}/operator`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = await fetch(`${service.listenUrl}/operator/operator.js`);
    expect({ status: script.status, type: script.headers.get('content-type') }).toEqual({ status: 200, type: 'text/javascript; charset=utf-8' });
  }, SLOW);

  it('an admin client sees the tree with its states and fan-out counters and the Child Evidence; a revoke from the page cascades', async () => {
    const page = await operatorPage('demo-admin', root.tokens.mission_id);
    const incidents = watchIncidents(page);
    await page.locator('#evidence-list').waitFor();
    const ids = { root: root.tokens.mission_id, child: child.tokens.mission_id, grandchild: grandchild.tokens.mission_id, suspended: suspended.tokens.mission_id, revoked: revoked.tokens.mission_id };
    expect(await pictured(page)).toEqual({
      [ids.root]: 'active', [ids.child]: 'active', [ids.grandchild]: 'active', [ids.suspended]: 'suspended', [ids.revoked]: 'revoked', [expiredId]: 'expired',
    });
    // Fan-out per delegable entry: the root's entry 0 counts its non-terminal children against max_children 5.
    expect(await page.locator(`#nodes-table tr[data-mission="${ids.root}"]`).textContent()).toContain('entry 0: 2 of 5 children active');
    expect(await page.locator(`#nodes-table tr[data-mission="${ids.child}"]`).textContent()).toContain('entry 0: 1 of 2 children active');
    // The timeline: four created children of the root, the grandchild under the child, and the denied request,
    // whose hostile child actor is shown as the characters it is.
    expect(await page.locator('#evidence-list li.evidence-created').count()).toBe(5);
    expect(await page.locator('#evidence-list li.evidence-denied').count()).toBe(1);
    expect(await page.locator('#evidence-list li.evidence-denied').textContent()).toContain(HOSTILE);
    expect(await page.locator('#evidence-list img, #evidence-list script').count()).toBe(0);
    await screenshot(page, 'issuer-operator-before');

    // Revoke the root from the page, with a reason and the in-page confirmation.
    await page.getByLabel(/^Reason for revoke/).fill('incident 4711: the invoice agent misbehaves');
    await page.locator(`#nodes-table tr[data-mission="${ids.root}"] button[data-operation="revoke"]`).click();
    // The confirmation is filled in by the page: wait for it rather than read it at once.
    await page.locator('#confirm-text', { hasText: 'Its 5 descendant missions will be cascaded' }).waitFor();
    await page.getByRole('button', { name: 'Yes, do it' }).click();
    // The page answers with a notice either way: wait for it, then say what it says (a refusal names its reason).
    await page.locator('#notice', { hasText: /^(revoked: |revoke )/ }).waitFor();
    expect(await page.locator('#notice').textContent()).toContain(`revoked: ${ids.root} is now revoked`);
    await page.locator(`#tree g.node[data-mission="${ids.root}"][data-state="revoked"]`).waitFor();
    await page.locator('#evidence-list').waitFor();
    const after = {
      [ids.root]: 'revoked', [ids.child]: 'cascaded', [ids.grandchild]: 'cascaded', [ids.suspended]: 'cascaded', [ids.revoked]: 'revoked', [expiredId]: 'expired',
    };
    expect(await pictured(page)).toEqual(after);
    // The issuer itself says so, not only the page.
    expect(await treeStates(ids.root)).toEqual(after);
    expect(await page.locator('#nodes-table button').count()).toBe(0);
    expect(incidents).toEqual({ dialogs: [], errors: [], cspViolations: [] });
    expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
    await screenshot(page, 'issuer-operator');
  }, SLOW);

  it('ADR 0042: the imported client key is non-extractable and the view keeps no cookie', async () => {
    const page = await operatorPage('demo-admin', root.tokens.mission_id);
    const extractable = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const open = indexedDB.open('mission-operator', 1);
        open.onsuccess = () => resolve(open.result);
      });
      const entry = await new Promise<{ privateKey: CryptoKey }>((resolve) => {
        const request = db.transaction('keys').objectStore('keys').get('operator');
        request.onsuccess = () => resolve(request.result as { privateKey: CryptoKey });
      });
      return entry.privateKey.extractable;
    });
    expect(extractable).toBe(false);
    expect(await page.context().cookies()).toEqual([]);
  }, SLOW);

  it('DESIGN 2.1 (attacker): a client of a mission in the tree, without the audit permission, is refused its tree and sees nothing', async () => {
    // demo-subagent is the child mission's own client (the lineage rule would let it in); only `audit` is missing.
    const page = await operatorPage('demo-subagent', child.tokens.mission_id);
    await page.locator('#notice', { hasText: 'The tree could not be read: refused' }).waitFor();
    expect(await page.locator('#tree-section').isHidden()).toBe(true);
    expect(await page.locator('#tree g.node').count()).toBe(0);
  }, SLOW);

  it('DESIGN 2.1 (attacker): an audit-only client sees no tree outside its lineage', async () => {
    const page = await operatorPage(AUDITOR, root.tokens.mission_id);
    await page.locator('#notice', { hasText: 'The tree could not be read: refused' }).waitFor();
    expect(await page.locator('#tree-section').isHidden()).toBe(true);
  }, SLOW);

  it('DESIGN 2.1 (attacker): an audit-only client sees its own tree, but its revoke from the page is refused and nothing changes', async () => {
    const own = await auditorRootMission();
    const page = await operatorPage(AUDITOR, own);
    await page.locator(`#tree g.node[data-mission="${own}"][data-state="active"]`).waitFor();
    await page.getByLabel(/^Reason for revoke/).fill('an auditor tries');
    await page.locator(`#nodes-table tr[data-mission="${own}"] button[data-operation="revoke"]`).click();
    await page.getByRole('button', { name: 'Yes, do it' }).click();
    await page.locator('#notice', { hasText: 'revoke refused' }).waitFor();
    expect(await treeStates(own, 'demo-admin')).toEqual({ [own]: 'active' });
  }, SLOW);

  it('ADR 0042: a key created in the browser shows its public JWK to register and is refused until it is registered', async () => {
    const context = await routedContext(browser, testBaseUrl, () => service.listenUrl);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${testBaseUrl}/operator#mission=${root.tokens.mission_id}`);
    await page.getByLabel(/^client_id/).fill('demo-admin');
    await page.getByRole('button', { name: 'Create a key in this browser instead' }).click();
    // Key generation is asynchronous in the page: wait for the JWK, do not race it.
    await page.locator('#key-jwk', { hasText: /^\{/ }).waitFor();
    const shown = JSON.parse((await page.locator('#key-jwk').textContent())!) as JWK;
    expect(Object.keys(shown).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    await page.locator('#notice', { hasText: 'the issuer does not accept this client key' }).waitFor();
    expect(await page.locator('#tree g.node').count()).toBe(0);
  }, SLOW);
});
