// Global setup of the `browser` jest project (ADR 0041): runs only when a *.browser.spec.ts is selected.
// Chromium must be there (installed now if it can be, else a clear failure) and the console bundle current.
import { buildConsole } from '../scripts/build-console.mjs';
import { ensureChromium } from '../scripts/ensure-chromium.mjs';

export default async function browserGlobalSetup() {
  ensureChromium();
  await buildConsole();
}
