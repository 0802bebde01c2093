import { createHash, randomBytes } from 'node:crypto';
import { SECURITY_AUDIT_STREAM, SecurityAudit } from '../abuse/security-audit.js';
import { alice, bob, headersExceptDateAndRequestId, newAgent, requestId } from '../testing/ps-http.spec-helper.js';
import { approvedMission, asAgent, asPrincipal, events, RESEARCHER, service, startMissionsServer } from '../testing/missions.spec-helper.js';

/** Spec 5.9 over HTTP: an absent mission and one the caller may not know are indistinguishable; probes are audited. */
startMissionsServer();

describe('spec 5.9 anti-oracle', () => {
  it('spec 5.9: an absent mission and a mission the caller may not know give byte-identical status, body and headers; the probe is audited with a keyed digest only', async () => {
    const { s256 } = await approvedMission(await newAgent(RESEARCHER), { owner: bob });
    const absent = createHash('sha256').update(randomBytes(8)).digest('base64url');
    const stranger = await newAgent();
    for (const operation of [{ operation: 'status' }, { operation: 'terminate', reason: 'revoked', request_id: requestId() }, { operation: 'delegation_tree' }]) {
      const foreign = await asAgent(stranger, { body: { ...operation, mission_s256: s256 } });
      const missing = await asAgent(stranger, { body: { ...operation, mission_s256: absent } });
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(foreign.status);
      expect(missing.text).toBe(foreign.text);
      expect(headersExceptDateAndRequestId(missing)).toEqual(headersExceptDateAndRequestId(foreign));
    }
    const byAlice = await asPrincipal(alice, { body: { operation: 'status', mission_s256: s256 } });
    const byAliceAbsent = await asPrincipal(alice, { body: { operation: 'status', mission_s256: absent } });
    expect(byAlice.text).toBe(byAliceAbsent.text);
    expect(headersExceptDateAndRequestId(byAlice)).toEqual(headersExceptDateAndRequestId(byAliceAbsent));

    const audit = service.app.get(SecurityAudit);
    await audit.flush();
    const probes = (await events(SECURITY_AUDIT_STREAM)).filter((event) => event.data['kind'] === 'mission_probe');
    expect(probes.map((event) => event.data['mission_ref_hmac'])).toEqual(expect.arrayContaining([audit.missionReferenceDigest(s256), audit.missionReferenceDigest(absent)]));
    expect(new Set(probes.map((event) => event.data['reason']))).toEqual(new Set(['absent', 'not_authorized']));
    const text = JSON.stringify((await events(SECURITY_AUDIT_STREAM)).map(({ data, metadata }) => ({ data, metadata })));
    expect(text).not.toContain(s256);
    expect(text).not.toContain(absent);
    // No false mission record (spec 6).
    expect(await events(`psmission-${absent}`)).toEqual([]);
  });
});
