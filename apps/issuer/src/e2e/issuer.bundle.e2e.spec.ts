import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect, openEsdbRig, type EsdbRig } from '@mission/event-store/testing';
import { bundledStartProblems, whileServing } from '@mission/platform/testing';
import { obtainRootMission } from '../testing/mission-flows.js';
import { builtMain, compiledMain, demoConfigFile, repositoryRoot, testBaseUrl } from '../testing/run-issuer.js';

/**
 * ADR 0078: `npm start`, the image and the manifests run the issuer bundled into one file. What a bundle can get wrong
 * and the in-process tests cannot see: folders computed from `import.meta.url` (the operator view's files), files
 * loaded with `createRequire` at run time (Swagger UI's), the EventStoreDB adapter that is imported only when
 * configured (gRPC). So the bundle serves a whole mission flow on both stores here. Needs `npm run build`.
 */
const built = existsSync(builtMain) && existsSync(compiledMain);
if (!built) console.warn(`skipping issuer bundle tests: ${builtMain} or ${compiledMain} is missing; run \`npm run build\` first`);
const describeBuilt = built ? describe : describe.skip;
const PROCESS_TEST_TIMEOUT_MS = 90_000;
const INVOICES = 'https://erp.example.com';
const DETAILS = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

let workDir: string;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'issuer-bundle-'));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

/** Runs `main` on a fresh DATA_DIR with the demo registry, calls `whileRunning` once it listens, then stops it. */
const serving = (main: string, env: Record<string, string>, whileRunning: (listenUrl: string) => Promise<void>) =>
  whileServing(main, repositoryRoot, { PORT: '0', BASE_URL: testBaseUrl, DATA_DIR: join(workDir, 'data'), CONFIG_FILE: demoConfigFile, ...env }, whileRunning);

async function ready(listenUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await fetch(`${listenUrl}/readyz`)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('/readyz never answered 200');
}

describeBuilt('node apps/issuer/dist/bundle/main.mjs (ADR 0078)', () => {
  it('serves a root mission flow, the operator view and the API docs on the embedded store, and stops with exit 0', async () => {
    const result = await serving(builtMain, {}, async (listenUrl) => {
      await ready(listenUrl);
      const mission = await obtainRootMission(listenUrl, { details: DETAILS });
      expect(mission.tokens.mission_id).toEqual(expect.any(String));
      // The operator view's files, found from the bundle's own location.
      const page = await fetch(`${listenUrl}/operator`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('operator.js');
      const script = await fetch(`${listenUrl}/operator/operator.js`);
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
      // Swagger UI's files, loaded from swagger-ui-dist at run time; the document built from the bundled decorators.
      const docs = await fetch(`${listenUrl}/docs`);
      expect(docs.status).toBe(200);
      const document = (await (await fetch(`${listenUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/par', '/token', '/introspect']));
      const metrics = await (await fetch(`${listenUrl}/metrics`)).text();
      expect(metrics).toContain('http_request_duration_seconds');
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Class names survive the bundle, and the WAL checkpoint worker starts from it.
    expect(bundledStartProblems(result.stdout)).toEqual([]);
  }, PROCESS_TEST_TIMEOUT_MS);

  describe('on the EventStoreDB adapter (the gRPC stand-in)', () => {
    let rig: EsdbRig;
    beforeEach(async () => {
      rig = await openEsdbRig();
    });
    afterEach(() => rig.dispose());

    it('loads the adapter the bundle carries and writes a mission flow through it', async () => {
      const result = await serving(builtMain, { EVENTSTORE_CONNECTION_STRING: rig.standIn.connectionString }, async (listenUrl) => {
        await ready(listenUrl);
        await obtainRootMission(listenUrl, { details: DETAILS });
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('"event_store":"eventstoredb"');
      const types = (await collect(rig.backing.readAll())).map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(['PushedAuthorizationRequestReceived', 'AuthorizationRequestApproved', 'MissionCreated', 'RefreshTokenIssued']));
    }, PROCESS_TEST_TIMEOUT_MS);
  });

  it('leaves the compiled entry (dist/main.js) runnable: it serves the same flow', async () => {
    const result = await serving(compiledMain, {}, async (listenUrl) => {
      await ready(listenUrl);
      await obtainRootMission(listenUrl, { details: DETAILS });
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, PROCESS_TEST_TIMEOUT_MS);
});
