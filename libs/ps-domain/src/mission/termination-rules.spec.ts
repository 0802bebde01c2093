import { InvalidRequestError, InvalidTerminationReasonError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { ADMIN, AGENT, MISSION_S256, OTHER_AGENT, OTHER_S256, PERSON, REQUEST_ID, TENANT } from '../testing/fixtures.js';
import { managementRole, type ManagementCaller } from './management-caller.js';
import { checkTerminationRules, isRequestId, PERMITTED_TERMINATION_REASONS, TERMINATION_REASONS } from './termination-rules.js';

describe('role rules as pure functions (spec 5.4, spec 2.4)', () => {
  it('spec 5.4: the permitted reasons per role', () => {
    expect(PERMITTED_TERMINATION_REASONS).toEqual({
      agent: ['revoked'],
      person: ['completed', 'revoked', 'superseded'],
      admin: ['administrative', 'revoked', 'superseded'],
    });
    expect(TERMINATION_REASONS).toEqual(['completed', 'revoked', 'expired', 'superseded', 'administrative']);
  });

  it('spec 5.4: checkTerminationRules returns the reason, and the replacement only for superseded', () => {
    expect(checkTerminationRules('agent', { reason: 'revoked', requestId: REQUEST_ID, replacementS256: OTHER_S256, replacementResolves: true }, MISSION_S256)).toEqual({ reason: 'revoked' });
    expect(checkTerminationRules('person', { reason: 'superseded', requestId: REQUEST_ID, replacementS256: OTHER_S256, replacementResolves: true }, MISSION_S256)).toEqual({
      reason: 'superseded',
      replacementS256: OTHER_S256,
    });
  });

  it('spec 5.4: refusals carry their spec 7 codes', () => {
    expect(() => checkTerminationRules('agent', { reason: 'completed', requestId: REQUEST_ID }, MISSION_S256)).toThrow(InvalidTerminationReasonError);
    expect(() => checkTerminationRules('admin', { reason: 'administrative', requestId: REQUEST_ID }, MISSION_S256)).toThrow(InvalidRequestError);
    expect(() => checkTerminationRules('person', { reason: 'superseded', requestId: REQUEST_ID }, MISSION_S256)).toThrow(InvalidRequestError);
    expect(() => checkTerminationRules('person', { reason: 'revoked', requestId: 'short' }, MISSION_S256)).toThrow(InvalidRequestError);
  });

  it('spec 4.2: request_id needs at least 22 visible ASCII characters (≥ 128 bits) and at most 256', () => {
    expect(isRequestId('A'.repeat(22))).toBe(true);
    expect(isRequestId('A'.repeat(21))).toBe(false);
    expect(isRequestId('A'.repeat(257))).toBe(false);
    expect(isRequestId(`${'A'.repeat(22)}\t`)).toBe(false);
  });
});

describe('caller roles towards a mission (spec 5.3–5.4, DESIGN 3.2)', () => {
  const mission = { agent: AGENT, tenant: TENANT };

  it.each([
    ['the owning agent', { role: 'agent', id: AGENT }, 'agent'],
    ['another agent', { role: 'agent', id: OTHER_AGENT }, undefined],
    ['a person of the tenant owning the agent', PERSON, 'person'],
    ['a person not owning the agent', { ...PERSON, ownedAgents: [] }, undefined],
    ['a person of another tenant', { ...PERSON, tenant: 'tenant-2' }, undefined],
    ['an administrator of the tenant', ADMIN, 'admin'],
    ['an administrator of another tenant', { ...ADMIN, tenant: 'tenant-2' }, undefined],
  ] as [string, ManagementCaller, string | undefined][])('spec 5.4: %s → %s', (_, caller, role) => {
    expect(managementRole(mission, caller)).toBe(role);
  });

  it('refuses a malformed caller as a bug at the caller', () => {
    expect(() => managementRole(mission, { role: 'root', id: 'x' } as never)).toThrow(InvalidCommandError);
    expect(() => managementRole(mission, { role: 'person', id: 'alice', tenant: TENANT } as never)).toThrow(InvalidCommandError);
  });
});
