import { randomBytes, randomUUID } from 'node:crypto';
import { InvalidRequestError, InvalidTerminationReasonError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { ADMIN, AGENT, MISSION_S256, OTHER_AGENT, OTHER_S256, PERSON, REQUEST_ID, TENANT } from '../testing/fixtures.js';
import { managementRole, type ManagementCaller } from './management-caller.js';
import { assertRequestId, checkTerminationRules, isRequestId, PERMITTED_TERMINATION_REASONS, requestIdEntropyBits, TERMINATION_REASONS } from './termination-rules.js';

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

  it('spec 4.2: request_id needs 22 to 256 visible ASCII characters', () => {
    expect(isRequestId('Jq3vX0b9TzK1mW7cRf2YhA')).toBe(true);
    expect(isRequestId('Jq3vX0b9TzK1mW7cRf2Yh')).toBe(false);
    expect(isRequestId(`Jq3vX0b9TzK1mW7cRf2YhA${'x'.repeat(235)}`)).toBe(false);
    expect(isRequestId('Jq3vX0b9TzK1mW7cRf2YhA\t')).toBe(false);
    expect(isRequestId('Jq3vX0b9TzK1mW7cRf2YhA é')).toBe(false);
  });
});

describe('request_id entropy (spec 4.2, spec 8: at least 128 bits)', () => {
  it.each([
    ['16 random bytes as base64url (22 characters)', () => randomBytes(16).toString('base64url')],
    ['24 random bytes as base64url (32 characters)', () => randomBytes(24).toString('base64url')],
    ['16 random bytes as padded base64 (24 characters)', () => randomBytes(16).toString('base64')],
    ['16 random bytes as hex (32 digits)', () => randomBytes(16).toString('hex')],
    ['16 random bytes as upper-case hex', () => randomBytes(16).toString('hex').toUpperCase()],
    ['a 39-digit decimal number', () => Array.from(randomBytes(39), (byte) => String(byte % 10)).join('')],
    ['two UUIDs', () => `${randomUUID()}${randomUUID()}`],
    ['a labelled base64url id (req_ + 22 characters)', () => `req_${randomBytes(16).toString('base64url')}`],
  ])('spec 4.2, 8: accepts %s, every time (1,000 samples)', (_, generate) => {
    for (let sample = 0; sample < 1_000; sample++) {
      const value = generate();
      expect([value, isRequestId(value)]).toEqual([value, true]);
    }
  });

  it.each([
    ['one character repeated', 'a'.repeat(22)],
    ['one character repeated 256 times', 'A'.repeat(256)],
    ['four distinct characters', 'abcdabcdaabbccddabcdabcdddcbaabcd'],
    ['a repeated 11-character unit', 'Jq3vX0b9TzK'.repeat(2)],
    ['a repeated unit, the last copy cut short', 'Jq3vX0b9TzK1'.repeat(10).slice(0, 115)],
    ['22 hex digits (88 bits)', '7d0f3b2e9a4c41d8b6e5f1'],
    ['31 hex digits (124 bits)', '7d0f3b2e9a4c41d8b6e5f1a2c3d4e5f'],
    ['a label and 19 hex digits (76 bits)', 'rq-7d0f3b2e9a4c41d8b6e5'],
    ['38 decimal digits (126 bits)', '73914058266013847592016483759201648375'],
    ['grouped decimal digits', '7391-4058-2660-1384-7592-0164-8375'],
    ['a canonical UUID (122 bits)', '3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34'],
    ['an upper-case UUID', '3F2B8C1E-9D4A-4F6B-8E2C-7A1D5B9C0E34'],
    ['a UUID URN', 'urn:uuid:3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34'],
    ['a UUID in braces', '{3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34}'],
  ])('spec 4.2, 8: refuses %s', (_, value) => {
    expect(isRequestId(value)).toBe(false);
    expect(() => assertRequestId(value)).toThrow(new InvalidRequestError(
      'request_id must carry at least 128 bits of entropy: for example 16 random bytes as 22 base64url or 32 hex characters (a UUID carries at most 122 bits; a repeated pattern counts once)',
    ));
  });

  it('spec 4.2, 8: the estimate per alphabet — hex 4, decimal log2(10), base64url 6, other visible ASCII log2(94) bits per character', () => {
    expect(requestIdEntropyBits('0123456789abcdef0123456789abcdeF')).toBe(128);
    expect(requestIdEntropyBits('3f2b8c1e-9d4a-4f6b-8e2c-7a1d5b9c0e34')).toBe(122);
    expect(requestIdEntropyBits('1'.repeat(22))).toBeCloseTo(Math.log2(10));
    expect(requestIdEntropyBits('Jq3vX0b9TzK1mW7cRf2YhA')).toBe(132);
    expect(requestIdEntropyBits('Jq3vX0b9TzK1mW7cRf2YhA==')).toBe(132);
    expect(requestIdEntropyBits('!Jq3vX0b9TzK1mW7cRf2Yh')).toBeCloseTo(22 * Math.log2(94));
    expect(requestIdEntropyBits('7391-4058')).toBeCloseTo(8 * Math.log2(10));
  });

  it('spec 4.2: a text rule failure says so before the entropy rule', () => {
    expect(() => assertRequestId('short')).toThrow('request_id must be 22 to 256 visible ASCII characters (at least 128 bits)');
    expect(() => assertRequestId(undefined)).toThrow(InvalidRequestError);
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
