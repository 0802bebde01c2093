import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { checkStrictSubset } from './check-strict-subset.js';
import { compareExactDecimals } from './exact-decimal.js';

/** Parent and child entries differing only in `constraints`; the parent entry is delegable. */
function subset(parentConstraints: Record<string, unknown>, childConstraints: Record<string, unknown>) {
  const entry = (extra: Record<string, unknown>) => ({ type: 'mission_resource_access', resource: 'https://erp.example.com/invoices', actions: ['invoices.pay'], ...extra });
  const result = checkStrictSubset(
    parseAuthorizationDetails([entry({ constraints: parentConstraints, delegation: { children: {} } })]),
    parseAuthorizationDetails([entry({ constraints: childConstraints })]),
  );
  return result.ok ? 'accepted' : result.reason;
}

const accepts = (parent: Record<string, unknown>, child: Record<string, unknown>) => expect(subset(parent, child)).toBe('accepted');
const refuses = (parent: Record<string, unknown>, child: Record<string, unknown>) => expect(subset(parent, child)).toBe('not_strict_subset');

describe('constraint rules (DESIGN 2.4 subset rule, spec 2.5 rule 2)', () => {
  describe('time_window', () => {
    const parent = { time_window: { not_before: '2030-01-01T00:00:00Z', not_after: '2030-01-31T00:00:00Z' } };

    it('DESIGN 2.4: a window inside the parent window is accepted, bounds inclusive (boundaries equal)', () => {
      accepts(parent, { time_window: { not_before: '2030-01-01T00:00:00.000Z', not_after: '2030-01-31T01:00:00+01:00' } });
      accepts(parent, { time_window: { not_before: '2030-01-10T00:00:00Z', not_after: '2030-01-20T00:00:00Z' } });
    });

    it('DESIGN 2.4: a window one millisecond (or one nanosecond) outside either bound is refused', () => {
      refuses(parent, { time_window: { not_before: '2029-12-31T23:59:59.999Z', not_after: '2030-01-31T00:00:00Z' } });
      refuses(parent, { time_window: { not_before: '2030-01-01T00:00:00Z', not_after: '2030-01-31T00:00:00.001Z' } });
      refuses(parent, { time_window: { not_before: '2030-01-01T00:00:00Z', not_after: '2030-01-31T00:00:00.000000001Z' } });
    });

    it('DESIGN 2.4: a dropped bound is a widening; a bound the parent lacks is a narrowing', () => {
      refuses(parent, { time_window: { not_before: '2030-01-01T00:00:00Z' } });
      accepts({ time_window: { not_after: '2030-01-31T00:00:00Z' } }, { time_window: { not_before: '2030-01-02T00:00:00Z', not_after: '2030-01-30T00:00:00Z' } });
    });

    it('spec 2.5 rule 7: unparseable bounds or unknown members cannot be proven and are refused', () => {
      refuses(parent, { time_window: { not_before: 'tomorrow', not_after: '2030-01-31T00:00:00Z' } });
      refuses(parent, { time_window: { ...parent.time_window, x_zone: 'UTC' } });
      refuses(parent, { time_window: '2030-01' });
    });

    it('spec 2.5 rule 7 (issue 11 audit): a bound the parent lacks is a narrowing only when it is a date-time', () => {
      const open = { time_window: { not_after: '2030-01-31T00:00:00Z' } };
      refuses(open, { time_window: { not_before: 'tomorrow', not_after: '2030-01-31T00:00:00Z' } });
      refuses(open, { time_window: { not_before: 0, not_after: '2030-01-31T00:00:00Z' } });
      refuses(open, { time_window: { not_before: null, not_after: '2030-01-31T00:00:00Z' } });
    });
  });

  describe('max_amount', () => {
    const parent = { max_amount: { amount: '500', currency: 'EUR' } };

    it('DESIGN 2.4: same currency and an amount ≤ the parent\'s (exact decimals: "500.00" = "500", "499.999" < "500")', () => {
      accepts(parent, { max_amount: { amount: '500.00', currency: 'EUR' } });
      accepts(parent, { max_amount: { amount: '499.999', currency: 'EUR' } });
      accepts(parent, { max_amount: { amount: '0500', currency: 'EUR' } });
      accepts(parent, { max_amount: { amount: '0', currency: 'EUR' } });
    });

    it('DESIGN 2.4: a larger amount is refused, however small the difference', () => {
      refuses(parent, { max_amount: { amount: '500.0000000000000000001', currency: 'EUR' } });
      refuses(parent, { max_amount: { amount: '1000', currency: 'EUR' } });
      refuses({ max_amount: { amount: '0.1', currency: 'EUR' } }, { max_amount: { amount: '0.10000000000000001', currency: 'EUR' } });
    });

    it('DESIGN 2.4: a different currency is refused even for a smaller amount', () => {
      refuses(parent, { max_amount: { amount: '1', currency: 'USD' } });
      refuses(parent, { max_amount: { amount: '1' } });
    });

    it('spec 2.5 rule 7: amounts that are not plain decimal strings are refused', () => {
      for (const amount of [400, '-1', '1e2', ' 400', '400.', '.5', '४००']) refuses(parent, { max_amount: { amount, currency: 'EUR' } });
      refuses(parent, { max_amount: { amount: '400', currency: 'EUR', x_period: 'day' } });
    });

    it('DESIGN 2.4: compareExactDecimals compares digit by digit', () => {
      expect(compareExactDecimals('500.00', '500')).toBe(0);
      expect(compareExactDecimals('499.999', '500')).toBe(-1);
      expect(compareExactDecimals('500.001', '500')).toBe(1);
      expect(compareExactDecimals('99', '100')).toBe(-1);
      expect(compareExactDecimals('00099.90', '99.9')).toBe(0);
      expect(compareExactDecimals('9007199254740993', '9007199254740992')).toBe(1);
      expect(compareExactDecimals('1,5', '2')).toBeUndefined();
    });
  });

  describe('tenant', () => {
    it('DESIGN 2.4: the same tenant is accepted, another is refused', () => {
      accepts({ tenant: 'acme' }, { tenant: 'acme' });
      refuses({ tenant: 'acme' }, { tenant: 'acme2' });
      refuses({ tenant: 'acme' }, { tenant: ['acme'] });
    });
  });

  describe('allowed_tools', () => {
    it('DESIGN 2.4: a subset of the tools (any order) is accepted', () => {
      accepts({ allowed_tools: ['search', 'pay', 'email'] }, { allowed_tools: ['email', 'search'] });
      accepts({ allowed_tools: ['search'] }, { allowed_tools: [] });
    });

    it('DESIGN 2.4: an extra tool or a non-array is refused', () => {
      refuses({ allowed_tools: ['search'] }, { allowed_tools: ['search', 'shell'] });
      refuses({ allowed_tools: ['search'] }, { allowed_tools: 'search' });
    });
  });

  describe('data_classification', () => {
    it('spec 2.5 rule 6 (issue 11 defect 3): no ordering of classes is assumed — "restricted" → "public" and every other change of a single label is refused', () => {
      refuses({ data_classification: 'restricted' }, { data_classification: 'public' });
      refuses({ data_classification: 'confidential' }, { data_classification: 'internal' });
      refuses({ data_classification: 'internal' }, { data_classification: 'confidential' });
      refuses({ data_classification: 'restricted' }, { data_classification: 'x-secret' });
      refuses({ data_classification: 'x-secret' }, { data_classification: 'public' });
    });

    it('spec 2.5 rule 1: the same single label is accepted', () => {
      accepts({ data_classification: 'restricted' }, { data_classification: 'restricted' });
      accepts({ data_classification: 'x-secret' }, { data_classification: 'x-secret' });
    });

    it('spec 2.5 rules 2, 6: a set of labels narrows by subset (any order), never by adding a label', () => {
      accepts({ data_classification: ['public', 'internal'] }, { data_classification: ['public'] });
      accepts({ data_classification: ['public', 'internal'] }, { data_classification: ['internal', 'public'] });
      refuses({ data_classification: ['public'] }, { data_classification: ['public', 'internal'] });
      refuses({ data_classification: ['restricted'] }, { data_classification: ['public'] });
    });

    it('spec 2.5 rules 6, 7: a single label and a set are not compared with each other, and non-string labels are refused', () => {
      refuses({ data_classification: ['internal'] }, { data_classification: 'public' });
      refuses({ data_classification: ['public', 'internal'] }, { data_classification: 'public' });
      refuses({ data_classification: 'public' }, { data_classification: ['public'] });
      refuses({ data_classification: ['public', 1] }, { data_classification: [1] });
    });
  });

  describe('recipient_domain', () => {
    it('DESIGN 2.4: equal, or a subset when both are arrays', () => {
      accepts({ recipient_domain: 'example.com' }, { recipient_domain: 'example.com' });
      accepts({ recipient_domain: ['example.com', 'example.org'] }, { recipient_domain: ['example.org'] });
    });

    it('spec 2.5 rule 6: another or an extra domain is refused (no subdomain containment)', () => {
      refuses({ recipient_domain: 'example.com' }, { recipient_domain: 'mail.example.com' });
      refuses({ recipient_domain: ['example.com'] }, { recipient_domain: ['mail.example.com'] });
      refuses({ recipient_domain: 'example.com' }, { recipient_domain: ['example.com', 'example.org'] });
      refuses({ recipient_domain: ['example.com'] }, { recipient_domain: [1] });
    });

    it('spec 2.5 rules 6, 7 (issue 11 audit): a single domain and a set are not compared with each other', () => {
      refuses({ recipient_domain: ['example.com', 'example.org'] }, { recipient_domain: 'example.org' });
      refuses({ recipient_domain: 'example.com' }, { recipient_domain: ['example.com'] });
    });
  });

  describe('resource_issued_after / resource_issued_before', () => {
    it('DESIGN 2.4: resource_issued_after the same or later is accepted, earlier refused (boundary inclusive)', () => {
      accepts({ resource_issued_after: '2024-01-01T00:00:00Z' }, { resource_issued_after: '2024-01-01T01:00:00+01:00' });
      accepts({ resource_issued_after: '2024-01-01T00:00:00Z' }, { resource_issued_after: '2024-06-01T00:00:00Z' });
      refuses({ resource_issued_after: '2024-01-01T00:00:00Z' }, { resource_issued_after: '2023-12-31T23:59:59.999Z' });
    });

    it('DESIGN 2.4: resource_issued_before the same or earlier is accepted, later refused (boundary inclusive)', () => {
      accepts({ resource_issued_before: '2024-01-01T00:00:00Z' }, { resource_issued_before: '2024-01-01T00:00:00.000Z' });
      accepts({ resource_issued_before: '2024-01-01T00:00:00Z' }, { resource_issued_before: '2023-01-01T00:00:00Z' });
      refuses({ resource_issued_before: '2024-01-01T00:00:00Z' }, { resource_issued_before: '2024-01-01T00:00:00.001Z' });
      refuses({ resource_issued_before: '2024-01-01T00:00:00Z' }, { resource_issued_before: 'soon' });
    });
  });

  describe('requires_action_approval', () => {
    it('DESIGN 2.4: parent true ⇒ child true; parent false allows either', () => {
      accepts({ requires_action_approval: true }, { requires_action_approval: true });
      accepts({ requires_action_approval: false }, { requires_action_approval: true });
      accepts({ requires_action_approval: false }, { requires_action_approval: false });
    });

    it('DESIGN 2.4: parent true with child false (or not a boolean) is refused', () => {
      refuses({ requires_action_approval: true }, { requires_action_approval: false });
      refuses({ requires_action_approval: true }, { requires_action_approval: 'yes' });
    });
  });

  describe('other keys', () => {
    it('DESIGN 2.4: unknown constraint keys must be equal', () => {
      accepts({ x_region: ['eu', 'us'] }, { x_region: ['eu', 'us'] });
      refuses({ x_region: ['eu', 'us'] }, { x_region: ['eu'] });
      refuses({ x_limit: 10 }, { x_limit: 5 });
    });

    it('spec 2.5 rule 2: a dropped constraint of any kind is refused', () => {
      refuses({ tenant: 'acme', requires_action_approval: false }, { tenant: 'acme' });
    });
  });
});
