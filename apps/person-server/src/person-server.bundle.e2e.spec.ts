import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningService } from '@mission/platform';
import { bundledStartProblems, whileServing } from '@mission/platform/testing';
import { newAgent, PsClient } from './testing/ps-http.spec-helper.js';
import { builtMain, compiledMain, demoConfigFile, repositoryRoot, testBaseUrl } from './testing/run-person-server.js';

/**
 * ADR 0078: `npm start`, the image and the manifests run the Person Server bundled into one file. Here the bundle
 * serves what the in-process tests cannot prove for it: the console's files (found from `import.meta.url`), Swagger
 * UI's (loaded with `createRequire` at run time) and a signed mission flow. Needs `npm run build`.
 */
const built = existsSync(builtMain) && existsSync(compiledMain);
if (!built) console.warn(`skipping person-server bundle tests: ${builtMain} or ${compiledMain} is missing; run \`npm run build\` first`);
const describeBuilt = built ? describe : describe.skip;
const PROCESS_TEST_TIMEOUT_MS = 90_000;

let workDir: string;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'person-server-bundle-'));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

/** Runs `main` on a fresh DATA_DIR with the demo registry, calls `whileRunning` once it listens, then stops it. */
const serving = (main: string, whileRunning: (listenUrl: string) => Promise<void>) =>
  whileServing(main, repositoryRoot, { PORT: '0', BASE_URL: testBaseUrl, DATA_DIR: join(workDir, 'data'), CONFIG_FILE: demoConfigFile }, whileRunning);

/** A mission approved by its person, then its status read with a signed request of its agent. */
async function signedStatusFlow(listenUrl: string): Promise<void> {
  const ps = new PsClient(() => ({ listenUrl }) as RunningService);
  const agent = await newAgent();
  const { s256 } = await ps.approvedMission(agent);
  const status = await ps.asAgent(agent, { body: { operation: 'status', mission_s256: s256 } });
  expect(status.status).toBe(200);
  expect(status.json).toMatchObject({ mission_s256: s256, mission_status: 'active' });
}

describeBuilt('node apps/person-server/dist/bundle/main.mjs (ADR 0078)', () => {
  it('serves a signed mission flow, the console and the API docs, and stops with exit 0', async () => {
    const result = await serving(builtMain, async (listenUrl) => {
      await signedStatusFlow(listenUrl);
      const page = await fetch(`${listenUrl}/console`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/console/console.js');
      const script = await fetch(`${listenUrl}/console/console.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
      expect((await fetch(`${listenUrl}/docs`)).status).toBe(200);
      const document = (await (await fetch(`${listenUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths).length).toBeGreaterThan(3);
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Class names survive the bundle, and the WAL checkpoint worker starts from it.
    expect(bundledStartProblems(result.stdout)).toEqual([]);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('leaves the compiled entry (dist/main.js) runnable: it serves the same flow', async () => {
    const result = await serving(compiledMain, signedStatusFlow);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, PROCESS_TEST_TIMEOUT_MS);
});
