import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Browser tests (ADR 0041): the Debian `chromium` binary (installed by tools/scripts/ensure-chromium.mjs from the
 * browser jest project's global setup) driven by `playwright-core`, which downloads nothing. One launch per spec
 * file; each person gets a fresh context (its own IndexedDB, no shared state).
 */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const SCREENSHOT_DIR = join(repositoryRoot, 'test-output', 'screenshots');

/**
 * Launches headless Chromium. `secureOrigins` are plain-http test origins the browser treats as secure contexts
 * (WebCrypto's `subtle` exists only there); requests to them are routed to the in-process services.
 */
export async function launchChromium(secureOrigins: readonly string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(secureOrigins.length > 0 ? [`--unsafely-treat-insecure-origin-as-secure=${secureOrigins.join(',')}`] : []),
    ],
  });
}

/**
 * A fresh context whose requests to `origin` are answered by the service at `target()` (read on every request,
 * so a restarted service on another port keeps the page's origin and its IndexedDB). The path, query, method,
 * headers and body pass unchanged, so signatures made for `origin` verify at the service (its BASE_URL is `origin`).
 */
export async function routedContext(browser: Browser, origin: string, target: () => string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.route(`${origin}/**`, async (route) => {
    const url = new URL(route.request().url());
    const response = await route.fetch({ url: `${target()}${url.pathname}${url.search}` });
    await route.fulfill({ response });
  });
  return context;
}

/** Every sign that script ran that should not have: dialogs (alert/confirm/prompt), page errors, CSP violations. */
export interface PageIncidents {
  readonly dialogs: string[];
  readonly errors: string[];
  readonly cspViolations: string[];
}

export function watchIncidents(page: Page): PageIncidents {
  const incidents: PageIncidents = { dialogs: [], errors: [], cspViolations: [] };
  page.on('dialog', (dialog) => {
    incidents.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => incidents.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) incidents.cspViolations.push(message.text());
  });
  return incidents;
}

/** Saves a full-page PNG under test-output/screenshots (git-ignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
