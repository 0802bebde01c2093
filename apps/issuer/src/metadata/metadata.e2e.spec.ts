import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningService } from '@mission/platform';
import { startIssuer, testBaseUrl } from '../testing/run-issuer.js';

describe('GET /.well-known/oauth-authorization-server (RFC 8414, DESIGN 2.1)', () => {
  let dataDir: string;
  let service: RunningService;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'issuer-metadata-'));
    ({ service } = await startIssuer(dataDir));
  });
  afterAll(async () => {
    await service.stop('tests finished');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists every member DESIGN 2.1 requires, with endpoints under the issuer identifier', async () => {
    const reply = await fetch(`${service.listenUrl}/.well-known/oauth-authorization-server`);
    expect(reply.status).toBe(200);
    const metadata = (await reply.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: testBaseUrl,
      pushed_authorization_request_endpoint: `${testBaseUrl}/par`,
      require_pushed_authorization_requests: true,
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
      authorization_details_types_supported: ['mission_resource_access'],
      mission_bound_authorization_supported: true,
      mission_status_endpoint: `${testBaseUrl}/missions/status`,
      mission_lifecycle_endpoint: `${testBaseUrl}/missions/lifecycle`,
      mission_max_stale_seconds: 60,
      introspection_endpoint: `${testBaseUrl}/introspect`,
      revocation_endpoint: `${testBaseUrl}/revoke`,
      jwks_uri: `${testBaseUrl}/jwks`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      authorization_response_iss_parameter_supported: true,
    });
    // Spec child-mission-delegation 4.4, DESIGN 2.1: advertised now that creation, cascade and evidence are implemented.
    expect(metadata).toMatchObject({
      mission_child_delegation_supported: true,
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:mission-child-creation'],
    });
  });
});
