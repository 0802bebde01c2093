import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningService } from '@mission/platform';
import { runBuiltService, startServiceForTest, type LogLine, type ProcessResult } from '@mission/platform/testing';
import { issuerService } from '../issuer-service.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const demoConfigFile = join(repositoryRoot, 'config/issuer.json');
/** What `npm start`, the image and the manifests run: the service bundled into one file (ADR 0078). */
export const builtMain = join(repositoryRoot, 'apps/issuer/dist/bundle/main.mjs');
/** The compiled entry the bundle is made from (`tsc -b` output; still runnable, e.g. to debug with the sources' file layout). */
export const compiledMain = join(repositoryRoot, 'apps/issuer/dist/main.js');
export const testBaseUrl = 'http://issuer.test';

/** Starts the issuer in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export function startIssuer(dataDir: string, env: Record<string, string> = {}): Promise<{ service: RunningService; logs: LogLine[] }> {
  return startServiceForTest(issuerService, { dataDir, baseUrl: testBaseUrl, configFile: demoConfigFile, env });
}

/** Runs `node apps/issuer/dist/bundle/main.mjs` as operators do. */
export function runBuiltIssuer(env: Record<string, string>, whenListening?: (pid: number, port: number) => void, timeoutMs?: number): Promise<ProcessResult> {
  return runBuiltService(builtMain, repositoryRoot, env, whenListening, timeoutMs);
}
