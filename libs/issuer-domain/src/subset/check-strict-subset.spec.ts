import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { checkStrictSubset, childExpiry, type StrictSubsetResult } from './check-strict-subset.js';

const RESOURCE = 'https://erp.example.com/invoices';

/** A parsed (normalised) set of one or more entries; the default entry is delegable (has `children`). */
function set(...entries: Record<string, unknown>[]) {
  return parseAuthorizationDetails(entries.map((extra) => ({ type: 'mission_resource_access', resource: RESOURCE, actions: ['invoices.read'], ...extra })));
}

const delegable = (children: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({ delegation: { children, ...rest } });

// RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E.
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

function refused(result: StrictSubsetResult, reason: 'not_strict_subset' | 'delegation_not_permitted', childIndex = 0): string {
  if (result.ok) throw new Error('expected a refusal');
  expect({ reason: result.reason, childIndex: result.childIndex }).toEqual({ reason, childIndex });
  expect(result.detail).toMatch(ERROR_DESCRIPTION);
  return result.detail;
}

describe('checkStrictSubset (spec 2.5, DESIGN 2.4 subset rule)', () => {
  it('spec 2.5 rule 1: an equal entry is a subset (equality permitted) and records the justifying parent entry', () => {
    const parent = set({ actions: ['invoices.read', 'invoices.pay'], constraints: { tenant: 't1' }, ...delegable({ max_children: 3 }) });
    expect(checkStrictSubset(parent, set({ actions: ['invoices.read', 'invoices.pay'], constraints: { tenant: 't1' } }))).toEqual({
      ok: true,
      justifications: [{ childIndex: 0, parentIndex: 0 }],
    });
  });

  it('DESIGN 2.4: the justifying parent entry is the first, in order, that justifies the child entry', () => {
    const parent = set(
      { resource: 'https://other.example', ...delegable() },
      { actions: ['invoices.read', 'invoices.pay'], ...delegable() },
      { actions: ['invoices.read'], ...delegable() },
    );
    const child = set({ actions: ['invoices.read'] }, { actions: ['invoices.pay'] }, { resource: 'https://other.example' });
    expect(checkStrictSubset(parent, child)).toEqual({
      ok: true,
      justifications: [
        { childIndex: 0, parentIndex: 1 },
        { childIndex: 1, parentIndex: 1 },
        { childIndex: 2, parentIndex: 0 },
      ],
    });
  });

  it('spec 2.5 rule 2: an extra action refuses with not_strict_subset, naming the member', () => {
    const detail = refused(checkStrictSubset(set(delegable()), set({ actions: ['invoices.read', 'invoices.pay'] })), 'not_strict_subset');
    expect(detail).toContain('actions');
    expect(detail).not.toContain('invoices.pay');
  });

  it('spec 2.5 rule 6: an extra resource (even a contained path) refuses with not_strict_subset', () => {
    refused(checkStrictSubset(set(delegable()), set({ resource: `${RESOURCE}/42` })), 'not_strict_subset');
    refused(checkStrictSubset(set(delegable()), set({ resource: 'https://ERP.example.com/invoices' })), 'not_strict_subset');
  });

  it('spec 2.5 rule 6: a different type of entry is never justified (only mission_resource_access exists), resources compare byte for byte', () => {
    expect(checkStrictSubset(set(delegable()), set({})).ok).toBe(true);
    refused(checkStrictSubset(set(delegable()), set({ resource: `${RESOURCE}/` })), 'not_strict_subset');
  });

  it('spec 2.5 rule 2: a dropped constraint refuses with not_strict_subset naming the constraint, not its value', () => {
    const parent = set({ constraints: { tenant: 'tenant-secret-value' }, ...delegable() });
    const detail = refused(checkStrictSubset(parent, set({})), 'not_strict_subset');
    expect(detail).toContain("'tenant'");
    expect(detail).not.toContain('tenant-secret-value');
  });

  it('spec 2.5 rule 2: a widened constraint refuses with not_strict_subset', () => {
    const parent = set({ constraints: { max_amount: { amount: '500', currency: 'EUR' } }, ...delegable() });
    const detail = refused(checkStrictSubset(parent, set({ constraints: { max_amount: { amount: '500.01', currency: 'EUR' } } })), 'not_strict_subset');
    expect(detail).toContain("'max_amount'");
    expect(detail).not.toContain('500');
  });

  it('DESIGN 2.4: a child constraint key absent from the parent is a narrowing and allowed', () => {
    const child = set({ constraints: { tenant: 't1', x_custom: { a: 1 } } });
    expect(checkStrictSubset(set(delegable()), child).ok).toBe(true);
  });

  it('DESIGN 2.4: unknown constraint keys must be deep-equal (member order is irrelevant)', () => {
    const parent = set({ constraints: { x_scope: { region: 'eu', level: [1, 2] } }, ...delegable() });
    expect(checkStrictSubset(parent, set({ constraints: { x_scope: { level: [1, 2], region: 'eu' } } })).ok).toBe(true);
    refused(checkStrictSubset(parent, set({ constraints: { x_scope: { level: [1], region: 'eu' } } })), 'not_strict_subset');
    refused(checkStrictSubset(parent, set({ constraints: { x_scope: { level: [1, 2], region: 'eu', more: true } } })), 'not_strict_subset');
    refused(checkStrictSubset(parent, set({ constraints: { x_scope: { level: [2, 1], region: 'eu' } } })), 'not_strict_subset');
  });

  it('spec 2.5 rule 4, spec 7: a non-delegable parent entry (no delegation.children) refuses with delegation_not_permitted', () => {
    const detail = refused(checkStrictSubset(set({}), set({})), 'delegation_not_permitted');
    expect(detail).toContain('children');
    refused(checkStrictSubset(set({ delegation: { max_depth: 2 } }), set({})), 'delegation_not_permitted');
  });

  it('spec 2.5 rule 4: delegation_not_permitted only when that is the only obstacle, else not_strict_subset', () => {
    refused(checkStrictSubset(set({}), set({ actions: ['invoices.pay'] })), 'not_strict_subset');
    // A delegable entry for another resource does not help; the non-delegable matching one is the obstacle.
    refused(checkStrictSubset(set({ resource: 'https://other.example', ...delegable() }, {}), set({})), 'delegation_not_permitted');
    // A later delegable entry justifies what an earlier non-delegable one cannot.
    expect(checkStrictSubset(set({}, delegable()), set({}))).toEqual({ ok: true, justifications: [{ childIndex: 0, parentIndex: 1 }] });
  });

  it('spec 2.5: the first unjustified child entry is reported and refuses the whole set', () => {
    const result = checkStrictSubset(set(delegable()), set({}, { actions: ['invoices.pay'] }, { resource: 'https://x.example' }));
    const detail = refused(result, 'not_strict_subset', 1);
    expect(detail).toMatch(/^authorization_details\[1\]/);
  });

  it('spec 2.5: detail uses the context name of the child set', () => {
    const detail = refused(checkStrictSubset(set(delegable()), set({ resource: 'https://x.example' }), { childSetName: 'child' }), 'not_strict_subset');
    expect(detail).toMatch(/^child\[0\] /);
  });
});

describe('childExpiry (DESIGN 2.4, spec 2.1 expires_at)', () => {
  const parentExpiresAt = new Date('2030-01-01T00:00:00.000Z');

  it('DESIGN 2.4: an earlier requested expiry is kept', () => {
    expect(childExpiry(new Date('2029-12-31T23:59:59.999Z'), parentExpiresAt).toISOString()).toBe('2029-12-31T23:59:59.999Z');
  });

  it("DESIGN 2.4: a later requested expiry is capped at the parent's", () => {
    expect(childExpiry(new Date('2030-01-01T00:00:00.001Z'), parentExpiresAt).toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('DESIGN 2.4: equal expiries give that instant, as a fresh Date', () => {
    const result = childExpiry(new Date(parentExpiresAt), parentExpiresAt);
    expect(result.getTime()).toBe(parentExpiresAt.getTime());
    expect(result).not.toBe(parentExpiresAt);
  });
});
