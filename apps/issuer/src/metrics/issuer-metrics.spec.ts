import { ServiceMetrics } from '@mission/platform';
import { metricSample } from '@mission/platform/testing';
import { CHILD_CREATION_GRANT_TYPE } from '../endpoints/token-parameters.js';
import { issuerDomainMetrics } from './issuer-metrics.js';

describe('issuer domain metrics (issue 18, ADR 0046)', () => {
  let metrics: ServiceMetrics;
  let count: ReturnType<typeof issuerDomainMetrics>;
  const sample = (name: string, labels: Record<string, string> = {}) => metricSample(metrics.registry, name, labels);

  beforeEach(() => {
    metrics = new ServiceMetrics('issuer');
    count = issuerDomainMetrics(metrics.registry);
  });

  it('every label value of the closed sets is exported at 0 before anything happened', async () => {
    expect(await sample('issuer_missions_created_total', { kind: 'child' })).toBe(0);
    expect(await sample('issuer_child_creation_denied_total', { reason: 'fanout_exceeded' })).toBe(0);
    expect(await sample('issuer_lifecycle_transitions_total', { to: 'cascaded' })).toBe(0);
    expect(await sample('issuer_tokens_issued_total', { grant_type: CHILD_CREATION_GRANT_TYPE })).toBe(0);
  });

  it('issuer_missions_created_total{kind}: root without parent, child with one', async () => {
    count('mission-m1', [{ type: 'MissionCreated', data: { mission_id: 'm1' } }]);
    count('mission-m2', [{ type: 'MissionCreated', data: { mission_id: 'm2', parent: { id: 'm1' } } }]);
    count('mission-m3', [{ type: 'MissionCreated', data: { mission_id: 'm3', parent: { id: 'm1' } } }]);
    expect(await sample('issuer_missions_created_total', { kind: 'root' })).toBe(1);
    expect(await sample('issuer_missions_created_total', { kind: 'child' })).toBe(2);
  });

  it('issuer_child_creation_denied_total{reason}: the spec 7 reason of the evidence; anything else is "other"', async () => {
    count('childevidence-m1', [{ type: 'ChildCreationDenied', data: { evidence: { denial_reason: 'not_strict_subset' } } }]);
    count('childevidence-m1', [{ type: 'ChildCreationDenied', data: { evidence: { denial_reason: 'made_up<script>' } } }]);
    expect(await sample('issuer_child_creation_denied_total', { reason: 'not_strict_subset' })).toBe(1);
    expect(await sample('issuer_child_creation_denied_total', { reason: 'other' })).toBe(1);
    expect(await sample('issuer_child_creation_denied_total', { reason: 'made_up<script>' })).toBe(0);
  });

  it('issuer_lifecycle_transitions_total{to}: the state each transition enters', async () => {
    count('mission-m1', [{ type: 'MissionSuspended', data: {} }, { type: 'MissionResumed', data: {} }, { type: 'MissionRevoked', data: {} }]);
    count('mission-m2', [{ type: 'MissionCascaded', data: {} }]);
    count('mission-m3', [{ type: 'MissionExpired', data: {} }, { type: 'MissionCompleted', data: {} }]);
    for (const to of ['suspended', 'active', 'revoked', 'cascaded', 'expired', 'completed']) expect({ to, value: await sample('issuer_lifecycle_transitions_total', { to }) }).toEqual({ to, value: 1 });
  });

  it('issuer_tokens_issued_total{grant_type}: one per committed redemption or rotation, nothing for other grant events', async () => {
    count('grant-g1', [{ type: 'AuthorizationCodeIssued', data: {} }, { type: 'AuthorizationCodeRedeemed', data: {} }]);
    count('grant-g1', [{ type: 'RefreshTokenRotated', data: {} }]);
    count('grant-g1', [{ type: 'RefreshTokenRotated', data: {} }]);
    count('grant-g2', [{ type: 'ChildGrantIssued', data: {} }, { type: 'ChildGrantRedeemed', data: {} }]);
    expect(await sample('issuer_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(1);
    expect(await sample('issuer_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(2);
    expect(await sample('issuer_tokens_issued_total', { grant_type: CHILD_CREATION_GRANT_TYPE })).toBe(1);
  });
});
