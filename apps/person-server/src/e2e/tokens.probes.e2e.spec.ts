import { missionStreamName, tokensStreamName } from '@mission/ps-domain';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { PROBE_FAILURES_PER_MINUTE } from '../abuse/probe-limiter.js';
import { events, newAgent, type Reply } from '../testing/ps-http.spec-helper.js';
import { absentReference, authToken, ps, service, startTokensServer, store } from '../testing/tokens-e2e.spec-helper.js';

/** Spec 5.9, 6, 8 over HTTP: failed POST /token lookups are security-audited and share the caller's probe allowance. */
startTokensServer();

/** The mission_probe events appended to security-audit after `before` (appends run in the background: flushed first). */
async function probesSince(before: number): Promise<{ data: Record<string, unknown>; text: string }[]> {
  await service.app.get(SecurityAudit).flush();
  return (await events(store, SECURITY_AUDIT_STREAM))
    .slice(before)
    .filter((event) => event.data['kind'] === 'mission_probe')
    .map(({ data, metadata }) => ({ data, text: JSON.stringify({ data, metadata }) }));
}

async function auditLength(): Promise<number> {
  await service.app.get(SecurityAudit).flush();
  return (await events(store, SECURITY_AUDIT_STREAM)).length;
}

describe('spec 5.9, 6, 8: POST /token probes are security-audited and rate limited like the management operations', () => {
  it('spec 5.9, 6: an absent and a not-owned reference are recorded in security-audit as mission_probe with the keyed digest only, and create no mission record', async () => {
    const owner = await newAgent();
    const { s256 } = await ps.approvedMission(owner);
    // An agent of its own, so the audit's repeat suppression and the probe budget of other tests do not interfere.
    const prober = await newAgent('aauth:auditor-probe@agents.example');
    const absent = absentReference('audit');
    const before = await auditLength();
    expect((await authToken(prober, absent)).status).toBe(404);
    expect((await authToken(prober, s256)).status).toBe(404);
    const probes = await probesSince(before);
    const audit = service.app.get(SecurityAudit);
    expect(probes.map(({ data }) => [data['reason'], data['mission_ref_hmac'], data['path'], data['caller_role']])).toEqual([
      ['absent', audit.missionReferenceDigest(absent), '/token', 'agent'],
      ['not_authorized', audit.missionReferenceDigest(s256), '/token', 'agent'],
    ]);
    for (const { text } of probes) {
      expect(text).not.toContain(absent);
      expect(text).not.toContain(s256);
    }
    // Spec 6: the probe creates no false mission record, and no token record either.
    expect(await events(store, missionStreamName(absent))).toEqual([]);
    expect(await events(store, tokensStreamName(absent))).toEqual([]);
    expect((await events(store, tokensStreamName(s256))).map((event) => event.type)).toEqual([]);
  });

  it('spec 5.9, 8: after its allowance of failed lookups the caller gets 429 rate_limited with Retry-After, before any lookup', async () => {
    const prober = await newAgent('aauth:limit-probe@agents.example');
    const replies: Reply[] = [];
    // The allowance refills at PROBE_FAILURES_PER_MINUTE per minute, so a slow machine may get a few more through.
    while (replies.length < 3 * PROBE_FAILURES_PER_MINUTE) {
      const reply = await authToken(prober, absentReference(`limit ${replies.length}`));
      replies.push(reply);
      if (reply.status !== 404) break;
    }
    const refused = replies.at(-1)!;
    expect([refused.status, refused.json['error']]).toEqual([429, 'rate_limited']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const failures = replies.slice(0, -1);
    expect(failures.length).toBeGreaterThanOrEqual(PROBE_FAILURES_PER_MINUTE);
    expect(failures.every((reply) => reply.json['error'] === 'mission_not_found')).toBe(true);
    // Blocked whatever it names: another reference is refused the same way, without a lookup.
    const again = await authToken(prober, absentReference('limit again'));
    expect([again.status, again.json['error']]).toEqual([429, 'rate_limited']);
    // One budget per caller across endpoints: the management operations refuse it too.
    const status = await ps.asAgent(prober, { body: { operation: 'status', mission_s256: absentReference('limit status') } });
    expect([status.status, status.json['error']]).toEqual([429, 'rate_limited']);
    // The limit is the caller's: another agent still gets its own answer.
    expect((await authToken(await newAgent('aauth:bystander@agents.example'), absentReference('bystander'))).status).toBe(404);
  }, 60_000);
});
