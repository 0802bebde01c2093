// Makes sure the Chromium the browser tests drive is installed (ADR 0041). playwright-core downloads no browser,
// and this machine kind cannot download Playwright's own builds, so the tests use Debian's `chromium` package:
// missing and running as root with apt-get (CI, fresh machines of this kind) → installed here; otherwise the run
// fails with what to do. The browser tests are never skipped silently.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const aptGet = '/usr/bin/apt-get';
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.env.CHROMIUM_PATH === undefined && root && existsSync(aptGet)) {
    process.stderr.write(`ensure-chromium: ${CHROMIUM_PATH} is missing; installing Debian's chromium package (apt-get)…\n`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync(aptGet, ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
      execFileSync(aptGet, ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    } catch (error) {
      throw new Error(`ensure-chromium: apt-get could not install chromium (${error.message}). The browser tests need it; see docs/decisions/0041-browser-tests-with-debian-chromium.md.`);
    }
    if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  }
  throw new Error(
    `ensure-chromium: no Chromium at ${CHROMIUM_PATH}, and it cannot be installed from here (${root ? 'no apt-get' : 'not root'}). ` +
      'Install it (Debian/Ubuntu: sudo apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary. ' +
      'The browser tests are part of npm test and are not skipped (docs/decisions/0041-browser-tests-with-debian-chromium.md).',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureChromium());
