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
      // DESIGN 3.1, ADR 0016: where a holder or audience revokes an Auth Token by (iss, jti).
      revocation_endpoint: `${testBaseUrl}/revoke`,
      pending_proposals_endpoint: `${testBaseUrl}/proposals/pending`,
      missions_endpoint: `${testBaseUrl}/missions/list`,
      // Spec 2.2: MUST contain status and terminate; delegation_tree when implemented.
      mission_management_operations_supported: ['status', 'terminate', 'delegation_tree'],
    });
  });

  it('DESIGN 3.1: the advertised revocation_endpoint is served (an unsigned POST is 401 with Signature-Error, not 404)', async () => {
    const metadata = (await (await fetch(`${service.listenUrl}/.well-known/agent-person.json`)).json()) as { revocation_endpoint: string };
    const path = new URL(metadata.revocation_endpoint).pathname;
    const unsigned = await fetch(`${service.listenUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('signature-error')).toContain('missing_signature');
  });
});
