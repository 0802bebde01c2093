import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningService } from '@mission/platform';
import { runBuiltService, startServiceForTest, type LogLine, type ProcessResult } from '@mission/platform/testing';
import { issuerService } from '../issuer-service.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const demoConfigFile = join(repositoryRoot, 'config/issuer.json');
export const builtMain = join(repositoryRoot, 'apps/issuer/dist/main.js');
export const testBaseUrl = 'http://issuer.test';

/** Starts the issuer in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export function startIssuer(dataDir: string, env: Record<string, string> = {}): Promise<{ service: RunningService; logs: LogLine[] }> {
  return startServiceForTest(issuerService, { dataDir, baseUrl: testBaseUrl, configFile: demoConfigFile, env });
}

/** Runs `node apps/issuer/dist/main.js` as operators do. */
export function runBuiltIssuer(env: Record<string, string>, whenListening?: (pid: number) => void, timeoutMs?: number): Promise<ProcessResult> {
  return runBuiltService(builtMain, repositoryRoot, env, whenListening, timeoutMs);
}
