import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningService } from '@mission/platform';
import { runBuiltService, startServiceForTest, type LogLine, type ProcessResult } from '@mission/platform/testing';
import { personServerService } from '../person-server-service.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const demoConfigFile = join(repositoryRoot, 'config/person-server.json');
/** What `npm start`, the image and the manifests run: the service bundled into one file (ADR 0078). */
export const builtMain = join(repositoryRoot, 'apps/person-server/dist/bundle/main.mjs');
/** The compiled entry the bundle is made from (`tsc -b` output; still runnable, e.g. to debug with the sources' file layout). */
export const compiledMain = join(repositoryRoot, 'apps/person-server/dist/main.js');
export const testBaseUrl = 'http://person-server.test';

/** Starts the Person Server in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export function startPersonServer(dataDir: string, env: Record<string, string> = {}): Promise<{ service: RunningService; logs: LogLine[] }> {
  return startServiceForTest(personServerService, { dataDir, baseUrl: testBaseUrl, configFile: demoConfigFile, env });
}

/** Runs `node apps/person-server/dist/bundle/main.mjs` as operators do. */
export function runBuiltPersonServer(env: Record<string, string>, whenListening?: (pid: number, port: number) => void, timeoutMs?: number): Promise<ProcessResult> {
  return runBuiltService(builtMain, repositoryRoot, env, whenListening, timeoutMs);
}
