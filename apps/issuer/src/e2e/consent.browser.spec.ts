import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createPkcePair } from '@mission/mission-client';
import type { RunningService } from '@mission/platform';
import { launchChromium, screenshot, watchIncidents } from '@mission/platform/testing';
import { DEMO_REDIRECT_URI, missionIntent, postAs } from '../testing/mission-flows.js';
import { startIssuer } from '../testing/run-issuer.js';

/** Issue 17: the issuer's consent page in a real headless Chromium (ADR 0041): readable Authority Set, nothing runs. */
const SLOW = 120_000;
const HOSTILE = `<script>window.__xss = 1</script>"><img src=x onerror="window.__xss = 2">`;
const dataDir = mkdtempSync(join(tmpdir(), 'issuer-consent-'));
let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  ({ service } = await startIssuer(dataDir));
  browser = await launchChromium();
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await service?.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

it('issue 17: the consent page shows goal, expiry and the Authority Set as a table; client text is inert', async () => {
  const details = [
    { type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['read', 'approve'], constraints: { max_amount: 5000 }, delegation: { max_depth: 1, children: { max_children: 2 } } },
    { type: 'mission_resource_access', resource: 'https://erp.example.com', actions: ['read'] },
  ];
  const par = await postAs(service.listenUrl, 'demo-consent-agent', '/par', {
    response_type: 'code', redirect_uri: DEMO_REDIRECT_URI, code_challenge: createPkcePair().challenge, code_challenge_method: 'S256',
    mission_intent: missionIntent(3_600_000, `Reconcile invoices ${HOSTILE}`, ['https://erp.example.com/invoices', 'https://erp.example.com']), authorization_details: JSON.stringify(details),
  });
  expect(par.status).toBe(201);
  const { request_uri: requestUri } = (await par.json()) as { request_uri: string };
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  const incidents = watchIncidents(page);
  await page.goto(`${service.listenUrl}/authorize?${new URLSearchParams({ client_id: 'demo-consent-agent', request_uri: requestUri }).toString()}`);
  expect(await page.locator('table tbody tr').count()).toBe(2);
  expect(await page.locator('table tbody tr').first().textContent()).toBe('https://erp.example.com/invoicesapprove, readmax amount: 5000max depth: 1max children: 2');
  expect(await page.getByText(`Reconcile invoices ${HOSTILE}`).count()).toBe(1);
  expect(await page.locator('img, script').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(incidents.dialogs).toEqual([]);
  await screenshot(page, 'issuer-consent');
}, SLOW);
