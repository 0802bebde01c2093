import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningService } from '@mission/platform';
import { launchChromium, routedContext, screenshot, watchIncidents } from '@mission/platform/testing';
import { agentToken, BOB_KEY, freshKey, OPS_KEY } from '../testing/signed-request.spec-helper.js';
import { ASSISTANT, newAgent, PsClient, type Agent } from '../testing/ps-http.spec-helper.js';
import { FakeResource } from '../testing/fake-resource.js';
import { configWithResource, resourceToken } from '../testing/resource-tokens.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';
import { tokenRequest } from '../testing/tokens.spec-helper.js';

/**
 * Issue 17 / ADR 0040: the person's console in a real headless Chromium (ADR 0041). The page's origin is the PS's
 * BASE_URL (`http://person-server.test`), routed to the in-process service, so the browser signs for the same
 * authority the PS verifies. One browser for the file; each person has a fresh context (own IndexedDB).
 */
const SLOW = 120_000; // a loaded 2-core CI: Chromium pages, PS restarts and revocation rounds

const SUB_AGENT = 'aauth:helper@agents.example';
const XSS = `<script>window.__xss = 'script'</script>"><img src=x onerror="window.__xss = 'img'">`;
const REVOCATION = { wait_ms: 0, max_attempts: 8, initial_delay_ms: 200, max_delay_ms: 400, timeout_ms: 1_000, lease_ms: 3_000, per_resource_per_second: 1_000, concurrency: 4 };

const resource = new FakeResource();
const dataDir = mkdtempSync(join(tmpdir(), 'ps-console-'));
const configFile = join(dataDir, 'person-server.json');
let service: RunningService;
let browser: Browser;
const ps = new PsClient(() => service);
const contexts: BrowserContext[] = [];

async function start(config: Record<string, unknown>): Promise<void> {
  writeFileSync(configFile, JSON.stringify(config));
  ({ service } = await startPersonServer(dataDir, { CONFIG_FILE: configFile }));
}

/** The demo config with alice's `jkt` replaced (enrolment) and revocation calls going to the fake resource. */
function config(aliceJkt?: string): Record<string, unknown> {
  const base = configWithResource(resource.endpoint, { revocation: REVOCATION });
  const principals = (base['principals'] as Record<string, unknown>[]).map((principal) => (principal['id'] === 'alice' && aliceJkt !== undefined ? { ...principal, jkt: aliceJkt } : principal));
  return { ...base, principals };
}

async function personPage(): Promise<Page> {
  const context = await routedContext(browser, testBaseUrl, () => service.listenUrl);
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${testBaseUrl}/console`);
  return page;
}

async function importKey(page: Page, jwk: JWK): Promise<void> {
  await page.getByText('Import an existing private JWK (once)').click();
  await page.getByLabel(/Private JWK/).fill(JSON.stringify(jwk));
  await page.getByRole('button', { name: 'Import key' }).click();
  await page.locator('#key-identity', { hasText: 'enrolled:' }).waitFor();
}

beforeAll(async () => {
  await resource.start('ok');
  await start(config());
  browser = await launchChromium([testBaseUrl]);
}, SLOW);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await service?.stop('tests finished');
  await resource.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('issue 17: the person console in Chromium', () => {
  let alicePage: Page;
  let agent: Agent;
  let s256: string;
  let pendingPath: string;

  it('GET /console is served by the PS with a strict CSP (no inline script, no other origin)', async () => {
    const response = await fetch(`${service.listenUrl}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  }, SLOW);

  it('ADR 0040: a key created in the browser is non-extractable, its thumbprint is what the PS enrols, and once enrolled it signs in', async () => {
    alicePage = await personPage();
    await alicePage.getByRole('button', { name: 'Create a key in this browser' }).click();
    // Key generation is asynchronous in the page (WebCrypto, IndexedDB): wait for the thumbprint, do not race it.
    await alicePage.locator('#key-jkt', { hasText: /^[A-Za-z0-9_-]{43}$/ }).waitFor();
    const jkt = (await alicePage.locator('#key-jkt').textContent())!;
    expect(jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await alicePage.locator('#key-identity', { hasText: 'not enrolled' }).waitFor();
    // The stored private key cannot be exported; its public half has exactly the thumbprint shown.
    const stored = await alicePage.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve) => {
        const open = indexedDB.open('mission-console', 1);
        open.onsuccess = () => resolve(open.result);
      });
      const entry = await new Promise<{ privateKey: CryptoKey; publicJwk: JsonWebKey }>((resolve) => {
        const request = db.transaction('keys').objectStore('keys').get('person');
        request.onsuccess = () => resolve(request.result as { privateKey: CryptoKey; publicJwk: JsonWebKey });
      });
      return { extractable: entry.privateKey.extractable, publicJwk: entry.publicJwk };
    });
    expect(stored.extractable).toBe(false);
    expect(await calculateJwkThumbprint(stored.publicJwk as JWK, 'sha256')).toBe(jkt);
    await screenshot(alicePage, 'console-key');

    // The administrator enrols the thumbprint as alice's principals[].jkt; the PS restarts on the same store.
    await service.stop('enrolment');
    await start(config(jkt));
    await alicePage.reload();
    await alicePage.locator('#key-identity', { hasText: 'enrolled:' }).waitFor();
    expect(await alicePage.locator('#inbox-section').isVisible()).toBe(true);
  }, SLOW);

  it('spec 5.9, ADR 0040: an agent-supplied description with <script> and "><img onerror> is shown literally and runs nothing', async () => {
    const incidents = watchIncidents(alicePage);
    agent = await newAgent(ASSISTANT);
    const proposed = await ps.asAgent(agent, { body: { description: XSS, tools: ['files.read', '<b>bold</b>'] } });
    expect(proposed.status).toBe(202);
    pendingPath = String(proposed.headers['location']).slice(testBaseUrl.length);
    await alicePage.getByRole('button', { name: 'Refresh inbox' }).click();
    const card = alicePage.locator('li.proposal');
    await card.waitFor();
    expect(await card.locator('.description').textContent()).toBe(XSS);
    expect(await card.textContent()).toContain('<b>bold</b>');
    expect(await card.locator('img, script, b').count()).toBe(0);
    expect(await alicePage.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
    expect(incidents.dialogs).toEqual([]);
    expect(incidents.errors).toEqual([]);
    await screenshot(alicePage, 'console-inbox');
  }, SLOW);

  it('DESIGN 3.1: Approve in the inbox makes the mission; it is listed as active with its times and tokens', async () => {
    await alicePage.locator('li.proposal').getByRole('button', { name: 'Approve' }).click();
    await alicePage.locator('#missions tr[data-mission]').first().waitFor();
    expect(await alicePage.locator('li.proposal').count()).toBe(0);
    const polled = await ps.asAgent(agent, { path: pendingPath });
    expect(polled.status).toBe(200);
    s256 = String(polled.json['s256']);
    const row = alicePage.locator(`tr[data-mission="${s256}"]`);
    expect(await row.locator('.status-active').textContent()).toBe('active');
    expect(await row.locator('.description').textContent()).toBe(XSS);
    expect(await row.textContent()).toContain('0 tracked tokens');
  }, SLOW);

  it('spec 4.3: after an Auth Token for the agent and one for a sub-agent, the tree picture shows root and sub_agent with token counts', async () => {
    const rootToken = await tokenFor(agent, s256);
    expect(rootToken).toBe(200);
    const subKey = await freshKey();
    const now = Math.floor(Date.now() / 1000);
    const subToken = await agentToken({ agentKey: subKey, claims: { sub: SUB_AGENT, parent_agent: agent.id, iat: now - 5, exp: now + 600 } });
    const rt = await resourceToken({ agent: SUB_AGENT, agentJkt: await calculateJwkThumbprint(subKey.publicJwk, 'sha256'), missionS256: s256, audience: testBaseUrl, scope: 'files.read' });
    expect((await tokenRequest(ps, agent, { resource_token: rt, subagent_token: subToken })).status).toBe(200);

    await alicePage.getByRole('button', { name: 'Refresh missions' }).click();
    const row = alicePage.locator(`tr[data-mission="${s256}"]`);
    await row.locator('.residual-cell', { hasText: '2 tracked tokens' }).waitFor();
    await screenshot(alicePage, 'console-missions');
    await row.getByRole('button', { name: /Open the mission/ }).click();
    await alicePage.locator('#tree g.node-sub_agent').waitFor();
    expect(await alicePage.locator('#tree g.node').count()).toBe(2);
    expect(await alicePage.locator('#tree g.node-root').textContent()).toBe(`${ASSISTANT}root · 1 token`);
    expect(await alicePage.locator('#tree g.node-sub_agent').textContent()).toBe(`${SUB_AGENT}sub_agent · 1 token`);
  }, SLOW);

  it('spec 4.2, 2.5: Terminate asks for confirmation, then the residual is shown open and closes as the resource confirms the revocations', async () => {
    await resource.setMode('fail'); // the resource answers 500 until the test lets it confirm
    await alicePage.getByLabel('Reason').selectOption('completed');
    await alicePage.getByRole('button', { name: 'Terminate…' }).click();
    const confirmation = (await alicePage.locator('#terminate-confirm-text').textContent())!;
    expect(confirmation).toContain(ASSISTANT);
    expect(confirmation).toContain('2 nodes');
    expect(confirmation).toContain('2 tracked tokens will be revoked');
    await alicePage.getByRole('button', { name: 'Yes, terminate' }).click();
    await alicePage.locator('#residual[data-closed="false"]').waitFor();
    expect(await alicePage.locator('#residual').textContent()).toContain('may stay usable until');
    await alicePage.locator(`tr[data-mission="${s256}"] .status-terminated`).waitFor();
    expect(await alicePage.locator('#detail-summary .status-terminated').textContent()).toBe('terminated');

    await resource.setMode('ok');
    await alicePage.locator('#residual[data-closed="true"]').waitFor({ timeout: 60_000 });
    expect(await alicePage.locator('#residual').textContent()).toContain('2 tracked tokens; 2 confirmed revoked; no tracked token is usable');
    expect(await alicePage.locator(`tr[data-mission="${s256}"]`).textContent()).toContain('reason: completed');
    await screenshot(alicePage, 'console-terminated');
  }, SLOW);

  it('spec 5.3, 5.9: a second person (bob, same tenant) never sees alice’s mission or proposals', async () => {
    await ps.asAgent(agent, { body: { description: 'A second proposal for alice only' } });
    const bobPage = await personPage();
    await importKey(bobPage, BOB_KEY);
    await bobPage.locator('#missions tr').first().waitFor();
    const text = (await bobPage.locator('main').textContent())!;
    expect(text).not.toContain(s256);
    expect(text).not.toContain(ASSISTANT);
    expect(text).not.toContain('second proposal');
    expect(await bobPage.locator('#missions').textContent()).toBe('No missions yet.');
    // The imported private JWK is not kept in the page.
    expect(await bobPage.locator('#key-import').inputValue()).toBe('');
  }, SLOW);

  it('spec 4.2 rule 1, 3 rule 5: an administrator sees the tenant’s mission, may terminate only with a purpose, and deletes the body of a terminated one', async () => {
    const opsPage = await personPage();
    await importKey(opsPage, OPS_KEY);
    const row = opsPage.locator(`tr[data-mission="${s256}"]`);
    await row.waitFor();
    expect(await opsPage.locator('#missions-hint').textContent()).toContain('administrator');
    await row.getByRole('button', { name: /Open the mission/ }).click();
    await opsPage.getByLabel('Purpose (required)').fill('Retention policy R-7');
    await opsPage.getByRole('button', { name: 'Delete the mission body' }).click();
    await opsPage.locator(`tr[data-mission="${s256}"] .description`, { hasText: '(body deleted)' }).waitFor();
    await screenshot(opsPage, 'console-admin');
  });
});

async function tokenFor(agent: Agent, s256: string): Promise<number> {
  const rt = await resourceToken({ agent: agent.id, agentJkt: await calculateJwkThumbprint(agent.key.publicJwk, 'sha256'), missionS256: s256, audience: testBaseUrl, scope: 'files.read' });
  return (await tokenRequest(ps, agent, { resource_token: rt })).status;
}
