import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore, RecordedEvent } from '@mission/event-store';
import { EVENT_STORE, type RunningService } from '@mission/platform';
import { AUDIT_DIGEST_KEY_FILE } from '../abuse/audit-digest-key.js';
import { RateLimiter } from '../abuse/rate-limiter.js';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { startPersonServer, testBaseUrl } from '../testing/run-person-server.js';
import { RequestAuthenticator } from './request-authenticator.js';
import { ALICE_KEY, agentRequest, failureOf, hwkSignatureKey, principalKey, signedRequest } from '../testing/signed-request.spec-helper.js';

/** The wiring of the running Person Server: demo config → authenticator, limiter and audit (DESIGN 3.2, 5). */
describe('request security in the running Person Server (DESIGN 3.2, 5; spec 5.9)', () => {
  let dataDir: string;
  let service: RunningService;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ps-security-'));
    ({ service } = await startPersonServer(dataDir));
  });

  afterAll(async () => {
    await service.stop('test done');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const now = (): number => Math.floor(Date.now() / 1000);

  it('DESIGN 3.2: the configured principals authenticate against the BASE_URL authority with the system clock', async () => {
    const alice = principalKey(ALICE_KEY);
    const request = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), signedUrl: testBaseUrl, created: now(), body: '{"operation":"status"}' });
    await expect(service.app.get(RequestAuthenticator).authenticate(request)).resolves.toMatchObject({ kind: 'principal', id: 'alice', role: 'person' });
    const elsewhere = signedRequest({ key: alice, signatureKey: hwkSignatureKey(alice), signedUrl: 'http://127.0.0.1:4001', created: now() });
    await expect(failureOf(service.app.get(RequestAuthenticator).authenticate(elsewhere))).resolves.toBe('invalid_signature');
  });

  it('DESIGN 3.2: Agent Tokens of the configured demo agent provider are accepted; their expiry is checked on the real clock', async () => {
    const request = await agentRequest({ signedUrl: testBaseUrl, created: now(), tokenClaims: { iat: now() - 10, exp: now() + 300 } });
    await expect(service.app.get(RequestAuthenticator).authenticate(request)).resolves.toMatchObject({ kind: 'agent' });
    const stale = await agentRequest({ signedUrl: testBaseUrl, created: now(), tokenClaims: { iat: now() - 7200, exp: now() - 3600 } });
    await expect(failureOf(service.app.get(RequestAuthenticator).authenticate(stale))).resolves.toBe('expired_agent_token');
  });

  it('DESIGN 5: rate limits come from config/person-server.json rate_limits', () => {
    const limiter = service.app.get(RateLimiter);
    expect(limiter.trySource('192.0.2.99')).toBeUndefined();
  });

  it('spec 5.9, DESIGN 3.3: the audit key is generated under DATA_DIR and events land in the security-audit stream', async () => {
    expect(existsSync(join(dataDir, AUDIT_DIGEST_KEY_FILE))).toBe(true);
    const audit = service.app.get(SecurityAudit);
    audit.record({ kind: 'mission_probe', reason: 'absent', source: '192.0.2.1', missionS256: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg' });
    await audit.flush();
    const store = service.app.get<EventStore>(EVENT_STORE);
    const events: RecordedEvent[] = [];
    for await (const event of store.readStream(SECURITY_AUDIT_STREAM)) events.push(event);
    expect(events.map((event) => event.data)).toEqual([
      expect.objectContaining({ kind: 'mission_probe', mission_ref_hmac: audit.missionReferenceDigest('n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg') }),
    ]);
    expect(JSON.stringify(events.map(({ data, metadata }) => ({ data, metadata })))).not.toContain('n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg');
  });
});
