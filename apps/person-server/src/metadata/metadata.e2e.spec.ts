import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningService } from '@mission/platform';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';

let dataDir: string;
let service: RunningService;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ps-metadata-'));
  ({ service } = await startPersonServer(dataDir));
});
afterAll(async () => {
  await service.stop('tests finished');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('PS metadata (spec mission-management 2.2, DESIGN 3.1)', () => {
  it.each(['/.well-known/agent-person.json', '/.well-known/aauth-person.json'])('spec 2.2: %s names the issuer, the mission endpoint and the supported operations', async (path) => {
    const response = await fetch(`${service.listenUrl}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      issuer: testBaseUrl,
      jwks_uri: `${testBaseUrl}/jwks`,
      mission_endpoint: `${testBaseUrl}/mission`,
      token_endpoint: `${testBaseUrl}/token`,
      auth_token_endpoint: `${testBaseUrl}/token`,
      // Spec 2.2: MUST contain status and terminate; delegation_tree when implemented.
      mission_management_operations_supported: ['status', 'terminate', 'delegation_tree'],
    });
  });
});
