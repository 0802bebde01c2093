import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, type EventStore, type RecordedEvent } from '@mission/event-store';
import type { Logger } from '@mission/platform';
import { TestClock } from '../testing/signed-request.spec-helper.js';
import { AUDIT_DIGEST_KEY_ENV, AUDIT_DIGEST_KEY_FILE, AuditDigestKey, loadAuditDigestKey } from './audit-digest-key.js';
import { SECURITY_AUDIT_STREAM, SECURITY_EVENT_RECORDED, SecurityAudit } from './security-audit.js';

const MISSION_S256 = 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg';
const ALICE = { kind: 'principal', id: 'alice', role: 'person', tenant: 't1', agents: [] } as const;

interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

function recordingLogger(lines: LoggedLine[]): Logger {
  const log = (level: LoggedLine['level']) => (_object: unknown, message: string) => lines.push({ level, message });
  return { info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger;
}

async function readAll(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(SECURITY_AUDIT_STREAM)) events.push(event);
  return events;
}

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ps-audit-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('audit digest key (spec 5.9: a keyed digest may be kept; DESIGN 3.3: an HMAC of the reference)', () => {
  it('spec 5.9: the digest is HMAC-SHA-256 under the deployment key, base64url, and differs from the raw reference', () => {
    const secret = randomBytes(32);
    const key = new AuditDigestKey(secret);
    const expected = createHmac('sha256', secret).update('mission_s256').update('\0').update(MISSION_S256).digest('base64url');
    expect(key.digest('mission_s256', MISSION_S256)).toBe(expected);
    expect(key.digest('mission_s256', MISSION_S256)).not.toContain(MISSION_S256);
    expect(new AuditDigestKey(randomBytes(32)).digest('mission_s256', MISSION_S256)).not.toBe(expected);
  });

  it('DESIGN 5: without the environment variable a key is generated under DATA_DIR (mode 0600) and reused on the next start', async () => {
    const first = await loadAuditDigestKey({}, dataDir);
    expect(first.source).toBe('generated');
    const path = join(dataDir, AUDIT_DIGEST_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = await loadAuditDigestKey({}, dataDir);
    expect(second.source).toBe('data_dir');
    expect(second.key.digest('mission_s256', MISSION_S256)).toBe(first.key.digest('mission_s256', MISSION_S256));
    expect(second.key.id).toBe(first.key.id);
  });

  it('DESIGN 5: concurrent first starts agree on one key', async () => {
    const loaded = await Promise.all([1, 2, 3, 4].map(() => loadAuditDigestKey({}, dataDir)));
    expect(new Set(loaded.map(({ key }) => key.id)).size).toBe(1);
  });

  it('DESIGN 5: SECURITY_AUDIT_HMAC_KEY (base64url, ≥ 32 bytes) takes precedence and nothing is written', async () => {
    const secret = randomBytes(32);
    const loaded = await loadAuditDigestKey({ [AUDIT_DIGEST_KEY_ENV]: secret.toString('base64url') }, dataDir);
    expect(loaded.source).toBe('environment');
    expect(loaded.key.digest('x', 'y')).toBe(new AuditDigestKey(secret).digest('x', 'y'));
    expect(() => statSync(join(dataDir, AUDIT_DIGEST_KEY_FILE))).toThrow();
  });

  it('DESIGN 5: a short or malformed key is a configuration error naming the variable or file', async () => {
    await expect(loadAuditDigestKey({ [AUDIT_DIGEST_KEY_ENV]: randomBytes(16).toString('base64url') }, dataDir)).rejects.toThrow(AUDIT_DIGEST_KEY_ENV);
    await expect(loadAuditDigestKey({ [AUDIT_DIGEST_KEY_ENV]: 'not base64url!' }, dataDir)).rejects.toThrow(AUDIT_DIGEST_KEY_ENV);
    mkdirSync(join(dataDir, 'keys'));
    writeFileSync(join(dataDir, AUDIT_DIGEST_KEY_FILE), 'short\n');
    await expect(loadAuditDigestKey({}, dataDir)).rejects.toThrow('security-audit-hmac.key');
  });
});

describe('SecurityAudit (spec 5.9, 6: rejected requests and probes go to a security audit log)', () => {
  let store: EmbeddedEventStore;
  let clock: TestClock;
  let lines: LoggedLine[];
  let key: AuditDigestKey;

  beforeEach(async () => {
    store = await EmbeddedEventStore.open({ dataDir });
    clock = new TestClock();
    lines = [];
    key = new AuditDigestKey(randomBytes(32));
  });

  afterEach(async () => {
    await store.close();
  });

  it('spec 5.9, DESIGN 3.3: a probe is appended as SecurityEventRecorded with the HMAC of the reference, never the reference', async () => {
    const audit = new SecurityAudit(store, key, clock, recordingLogger(lines));
    audit.record({ kind: 'mission_probe', reason: 'absent', caller: ALICE, source: '192.0.2.1', method: 'POST', path: '/mission?token=secret', requestId: 'req-1', missionS256: MISSION_S256 });
    await audit.flush();
    const [event, ...rest] = await readAll(store);
    expect(rest).toEqual([]);
    expect(event!.type).toBe(SECURITY_EVENT_RECORDED);
    expect(event!.data).toEqual({
      kind: 'mission_probe',
      occurred_at: '2026-03-01T12:00:00.000Z',
      reason: 'absent',
      caller_key: 'principal:alice',
      caller_role: 'person',
      source: '192.0.2.1',
      method: 'POST',
      path: '/mission',
      request_id: 'req-1',
      mission_ref_hmac: key.digest('mission_s256', MISSION_S256),
      hmac_key_id: key.id,
    });
    expect(event!.metadata).toEqual({
      correlation_id: 'req-1',
      causation_id: 'req-1',
      actor: { id: 'principal:alice', role: 'person' },
      occurred_at: '2026-03-01T12:00:00.000Z',
    });
    const stored = storedBytes(dataDir);
    expect(stored).toContain(key.digest('mission_s256', MISSION_S256));
    expect(stored).not.toContain(MISSION_S256);
    expect(stored).not.toContain('secret');
  });

  it('spec 5.9: an unauthenticated failure names the source as actor', async () => {
    const audit = new SecurityAudit(store, key, clock, recordingLogger(lines));
    audit.record({ kind: 'signature_failed', reason: 'replayed_signature', source: '192.0.2.9' });
    await audit.flush();
    const [event] = await readAll(store);
    expect(event!.data).toMatchObject({ kind: 'signature_failed', reason: 'replayed_signature', source: '192.0.2.9' });
    expect(event!.data).not.toHaveProperty('caller_key');
    expect(event!.metadata['actor']).toEqual({ id: 'source:192.0.2.9', role: 'unauthenticated' });
  });

  it('spec 5.9: repeated identical events are written once per interval, the next one counting those suppressed', async () => {
    const audit = new SecurityAudit(store, key, clock, recordingLogger(lines), { repeatIntervalMs: 60_000 });
    for (let i = 0; i < 5; i++) audit.record({ kind: 'rate_limited', reason: 'per_source', source: '192.0.2.1' });
    audit.record({ kind: 'rate_limited', reason: 'per_source', source: '192.0.2.2' });
    clock.advance(60);
    audit.record({ kind: 'rate_limited', reason: 'per_source', source: '192.0.2.1' });
    await audit.flush();
    const events = await readAll(store);
    expect(events.map((event) => [event.data['source'], event.data['suppressed']])).toEqual([
      ['192.0.2.1', undefined],
      ['192.0.2.2', undefined],
      ['192.0.2.1', 4],
    ]);
  });

  it('spec 5.9: probes of different references are each recorded; the same reference repeated is throttled', async () => {
    const audit = new SecurityAudit(store, key, clock, recordingLogger(lines));
    audit.record({ kind: 'mission_probe', caller: ALICE, missionS256: MISSION_S256 });
    audit.record({ kind: 'mission_probe', caller: ALICE, missionS256: MISSION_S256 });
    audit.record({ kind: 'mission_probe', caller: ALICE, missionS256: 'A'.repeat(43) });
    await audit.flush();
    expect(await readAll(store)).toHaveLength(2);
  });

  it('spec 5.9: appends never block or fail the request path: a failing store is logged, record returns at once', async () => {
    let release!: () => void;
    const failing = {
      appendToStream: () =>
        new Promise((_resolve, reject) => {
          release = () => reject(new Error('store down'));
        }),
    } as unknown as EventStore;
    const audit = new SecurityAudit(failing, key, clock, recordingLogger(lines));
    expect(audit.record({ kind: 'signature_failed', reason: 'invalid_signature' })).toBeUndefined();
    release();
    await audit.flush();
    expect(lines).toEqual([{ level: 'error', message: 'security audit: event could not be appended' }]);
  });

  it('spec 5.9: appends in flight are capped; excess events are dropped with a warning', async () => {
    const hanging = { appendToStream: () => new Promise(() => undefined) } as unknown as EventStore;
    const audit = new SecurityAudit(hanging, key, clock, recordingLogger(lines), { maxPendingAppends: 2 });
    for (let i = 0; i < 3; i++) audit.record({ kind: 'signature_failed', reason: 'invalid_signature', source: `192.0.2.${i}` });
    expect(lines).toEqual([{ level: 'warn', message: 'security audit: too many appends in flight; event dropped' }]);
  });
});

/** Every byte the embedded store wrote under `dir` (database and write-ahead log). */
function storedBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'))
    .join('');
}
