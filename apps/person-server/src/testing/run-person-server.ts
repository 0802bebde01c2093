import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningService } from '@mission/platform';
import { runBuiltService, startServiceForTest, type LogLine, type ProcessResult } from '@mission/platform/testing';
import { personServerService } from '../person-server-service.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const demoConfigFile = join(repositoryRoot, 'config/person-server.json');
export const builtMain = join(repositoryRoot, 'apps/person-server/dist/main.js');
export const testBaseUrl = 'http://person-server.test';

/** Starts the Person Server in this process on a free port with its own DATA_DIR; logs are captured, not printed. */
export function startPersonServer(dataDir: string, env: Record<string, string> = {}): Promise<{ service: RunningService; logs: LogLine[] }> {
  return startServiceForTest(personServerService, { dataDir, baseUrl: testBaseUrl, configFile: demoConfigFile, env });
}

/** Runs `node apps/person-server/dist/main.js` as operators do. */
export function runBuiltPersonServer(env: Record<string, string>, whenListening?: (pid: number) => void, timeoutMs?: number): Promise<ProcessResult> {
  return runBuiltService(builtMain, repositoryRoot, env, whenListening, timeoutMs);
}
