import { ServiceMetrics } from '@mission/platform';
import { metricSample } from '@mission/platform/testing';
import { SECURITY_EVENT_RECORDED } from '../abuse/security-audit.js';
import { personServerDomainMetrics } from './person-server-metrics.js';

describe('Person Server domain metrics (issue 18, ADR 0046)', () => {
  let metrics: ServiceMetrics;
  let count: ReturnType<typeof personServerDomainMetrics>;
  const sample = (name: string, labels: Record<string, string> = {}) => metricSample(metrics.registry, name, labels);

  beforeEach(() => {
    metrics = new ServiceMetrics('person-server');
    count = personServerDomainMetrics(metrics.registry);
  });

  it('ps_terminations_total{reason}: the spec 2.4 reason; anything else is "other"', async () => {
    expect(await sample('ps_terminations_total', { reason: 'superseded' })).toBe(0);
    count('psmission-a', [{ type: 'MissionTerminated', data: { reason: 'revoked' } }]);
    count('psmission-b', [{ type: 'MissionTerminated', data: { reason: 'expired' } }]);
    count('psmission-c', [{ type: 'MissionTerminated', data: { reason: 'nonsense' } }]);
    expect(await sample('ps_terminations_total', { reason: 'revoked' })).toBe(1);
    expect(await sample('ps_terminations_total', { reason: 'expired' })).toBe(1);
    expect(await sample('ps_terminations_total', { reason: 'other' })).toBe(1);
  });

  it('ps_revocation_attempts_total{outcome}: confirmed, or the recorded failure', async () => {
    count('pstokens-a', [{ type: 'TokenRevocationAttempted', data: {} }, { type: 'TokenRevocationFailed', data: { outcome: 'timeout' } }]);
    count('pstokens-a', [{ type: 'TokenRevocationAttempted', data: {} }, { type: 'TokenRevocationConfirmed', data: {} }]);
    expect(await sample('ps_revocation_attempts_total', { outcome: 'timeout' })).toBe(1);
    expect(await sample('ps_revocation_attempts_total', { outcome: 'confirmed' })).toBe(1);
    expect(await sample('ps_revocation_attempts_total', { outcome: 'unreachable' })).toBe(0);
  });

  it('ps_probes_refused_total: each recorded mission probe plus the identical repeats it folded; other audit kinds not', async () => {
    expect(await sample('ps_probes_refused_total')).toBe(0);
    count('security-audit', [{ type: SECURITY_EVENT_RECORDED, data: { kind: 'mission_probe', reason: 'absent' } }]);
    count('security-audit', [{ type: SECURITY_EVENT_RECORDED, data: { kind: 'mission_probe', reason: 'absent', suppressed: 4 } }]);
    count('security-audit', [{ type: SECURITY_EVENT_RECORDED, data: { kind: 'signature_failed' } }]);
    expect(await sample('ps_probes_refused_total')).toBe(6);
  });
});
