import fc from 'fast-check';
import type { Json } from './subset-oracle.js';

/**
 * fast-check arbitraries for the strict-subset property tests: Authority Set entries drawn from small
 * pools chosen to tempt every relaxation spec 2.5 rule 6 forbids (contained and case-changed
 * resources, action families, ordered-looking labels, subdomains, instants written in several
 * forms, decimals with trailing zeros), plus values no rule can read.
 */
export type Entry = { [member: string]: Json };

export const TYPE = 'mission_resource_access';
export const RESOURCES = ['https://erp.example.com/invoices', 'https://erp.example.com/invoices/2026', 'https://ERP.example.com/invoices', 'https://erp.example.com/payments'];
export const ACTIONS = ['invoices.read', 'invoices.write', 'invoices.pay', 'invoices.*', 'read'];
export const LABELS = ['public', 'internal', 'confidential', 'restricted'];
export const DOMAINS = ['example.com', 'mail.example.com', 'example.org'];
export const TOOLS = ['search', 'pay', 'email'];
export const TENANTS = ['acme', 'acme-eu'];
export const AMOUNTS = ['0', '9.999', '10', '10.00', '010', '10.001', '100'];
export const CURRENCIES = ['EUR', 'USD'];
export const SCOPES: Json[] = [{ region: 'eu' }, { region: 'us' }, ['eu', 'us'], ['eu'], 5];
export const MATCHERS: Json[] = [{ sub_profile: 'ai_agent' }, { sub_profile: 'client_instance' }, { sub_profile: 'ai_agent', iss: 'https://x.example' }, { sub: 'demo-subagent' }];
export const POLICIES = ['allow', 'short-lived'];
export const GARBAGE: Json[] = ['tomorrow', 42, null, { x: 1 }];

/** Instants as nanosecond offsets from 2030-01-10T00:00:00Z, 1 ns apart at the closest. */
const BASE_NS = BigInt(Date.UTC(2030, 0, 10)) * 1_000_000n;
const DAY_NS = 86_400_000_000_000n;
export const OFFSETS_NS = [-DAY_NS, -1n, 0n, 1n, 1_000_000n, 3_600_000_000_000n, DAY_NS, 5n * DAY_NS];
export const FORMS = [0, 1, 2] as const;

/** Renders an instant as RFC 3339: form 0 `Z` with the shortest fraction, 1 a `+01:00` offset, 2 nine fraction digits. */
export function renderInstant(ns: bigint, form: number): string {
  const subMs = ((ns % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const ms = Number((ns - subMs) / 1_000_000n);
  const iso = new Date(ms + (form === 1 ? 3_600_000 : 0)).toISOString();
  const millis = iso.slice(20, 23);
  const fraction = form === 2 || subMs !== 0n ? `.${millis}${subMs.toString().padStart(6, '0')}` : millis === '000' ? '' : `.${millis}`;
  return `${iso.slice(0, 19)}${fraction}${form === 1 ? '+01:00' : 'Z'}`;
}

export const instantAt = (offset: bigint, form: number): string => renderInstant(BASE_NS + offset, form);
export const BASE_INSTANT_NS = BASE_NS;

const instantArb = fc.tuple(fc.constantFrom(...OFFSETS_NS), fc.constantFrom(...FORMS)).map(([offset, form]) => instantAt(offset, form));
const withGarbage = (good: fc.Arbitrary<Json>): fc.Arbitrary<Json> => fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: fc.constantFrom(...GARBAGE) });
const labelsArb = (pool: string[]): fc.Arbitrary<Json> => fc.oneof(fc.constantFrom(...pool), fc.shuffledSubarray(pool));

/** A value for each constraint key the subset rule knows, and one it does not (`x_scope`). */
export const CONSTRAINT_ARBITRARIES: Record<string, fc.Arbitrary<Json>> = {
  time_window: withGarbage(fc.record({ not_before: instantArb, not_after: instantArb }, { requiredKeys: [] })),
  max_amount: withGarbage(fc.record({ amount: fc.constantFrom(...AMOUNTS), currency: fc.constantFrom(...CURRENCIES) })),
  tenant: fc.constantFrom(...TENANTS),
  allowed_tools: withGarbage(fc.shuffledSubarray(TOOLS)),
  data_classification: withGarbage(labelsArb(LABELS)),
  recipient_domain: withGarbage(labelsArb(DOMAINS)),
  resource_issued_after: withGarbage(instantArb),
  resource_issued_before: withGarbage(instantArb),
  requires_action_approval: fc.boolean(),
  x_scope: fc.constantFrom(...SCOPES),
};
export const CONSTRAINT_KEYS = Object.keys(CONSTRAINT_ARBITRARIES);

const constraintsArb = fc
  .shuffledSubarray(CONSTRAINT_KEYS, { maxLength: 4 })
  .chain((keys) => fc.tuple(...keys.map((key) => CONSTRAINT_ARBITRARIES[key]!)).map((values) => Object.fromEntries(keys.map((key, index) => [key, values[index]!]))));

const childrenArb = fc.record(
  {
    max_children: fc.integer({ min: 1, max: 4 }),
    allowed_child_actors: fc.shuffledSubarray(MATCHERS),
    max_child_depth: fc.integer({ min: 1, max: 3 }),
    child_creation_policy: fc.constantFrom(...POLICIES),
    x_budget: fc.constant<Json>({ per_day: 5 }),
  },
  { requiredKeys: [] },
);

const delegationArb = (withChildren: boolean): fc.Arbitrary<Json> =>
  fc
    .record({ max_depth: fc.integer({ min: 0, max: 3 }), allowed_delegates: fc.shuffledSubarray(MATCHERS), x_audit: fc.constant<Json>('strict') }, { requiredKeys: [] })
    .chain((delegation) => (withChildren ? childrenArb.map((children) => ({ ...delegation, children })) : fc.constant(delegation)));

/** One entry; most carry `delegation.children` (delegable), some `delegation` without it, some none. */
export const entryArb: fc.Arbitrary<Entry> = fc
  .record({
    resource: fc.constantFrom(...RESOURCES),
    actions: fc.shuffledSubarray(ACTIONS, { minLength: 1 }),
    constraints: fc.option(constraintsArb, { freq: 4 }),
    delegation: fc.oneof({ weight: 6, arbitrary: delegationArb(true) }, { weight: 1, arbitrary: delegationArb(false) }, { weight: 1, arbitrary: fc.constant(undefined) }),
  })
  .map(({ resource, actions, constraints, delegation }) => ({
    type: TYPE,
    resource,
    actions,
    ...(constraints ? { constraints } : {}),
    ...(delegation !== undefined ? { delegation } : {}),
  }));

export const parentSetArb: fc.Arbitrary<Entry[]> = fc.array(entryArb, { minLength: 1, maxLength: 3 });
