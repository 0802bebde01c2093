import { ACTIONS, BASE_INSTANT_NS, DOMAINS, FORMS, LABELS, MATCHERS, RESOURCES, SCOPES, instantAt, type Entry } from './subset-arbitraries.js';
import { between, pick, someOf, type Gen } from './subset-choices.js';
import { isObject, isStringArray, narrowChildren } from './subset-narrowing.js';
import { instant, type Json } from './subset-oracle.js';

/**
 * Single relaxations (issue 11): each takes a child entry that is within `parent` and changes ONE
 * thing so that it no longer is — the attacks spec 2.5 rules 2, 3, 6 and 7 forbid.
 */
export const RELAXATIONS = [
  'add an action',
  'change the resource',
  'drop a constraint',
  'widen a constraint',
  'raise max_depth',
  'drop max_depth',
  'widen allowed_delegates',
  'add a delegation member the parent lacks',
  'add children the parent does not permit',
  'widen children',
] as const;
export type Relaxation = (typeof RELAXATIONS)[number];
type JsonObject = { [member: string]: Json };

/** A deep copy in this realm (Jest's `structuredClone` builds objects of another realm, which the parser rejects as not plain). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const without = (value: JsonObject, name: string): JsonObject => Object.fromEntries(Object.entries(value).filter(([member]) => member !== name));
const parentDelegation = (parent: Entry): JsonObject => (isObject(parent['delegation']) ? parent['delegation'] : {});
const parentChildren = (parent: Entry): JsonObject | undefined => {
  const children = parentDelegation(parent)['children'];
  return isObject(children) ? children : undefined;
};
const parentConstraintKeys = (parent: Entry): string[] => (isObject(parent['constraints']) ? Object.keys(parent['constraints']) : []);

/** Which relaxations apply to this parent entry (the delegable parent always has `delegation`). */
export function applicableRelaxations(parent: Entry): Relaxation[] {
  const delegation = parentDelegation(parent);
  return RELAXATIONS.filter((kind) => {
    if (kind === 'drop a constraint' || kind === 'widen a constraint') return parentConstraintKeys(parent).length > 0;
    if (kind === 'drop max_depth') return delegation['max_depth'] !== undefined;
    if (kind === 'widen children') return ((parentChildren(parent)?.['max_child_depth'] ?? 1) as number) >= 2;
    return true;
  });
}

export function relaxEntry(g: Gen, kind: Relaxation, parent: Entry, child: Entry): Entry {
  const relaxed: Entry = copy(child);
  switch (kind) {
    case 'add an action':
      relaxed['actions'] = [...(child['actions'] as Json[]), pick(g, [...ACTIONS, 'invoices.delete'].filter((action) => !(parent['actions'] as Json[]).includes(action)))];
      return relaxed;
    case 'change the resource': {
      const resource = parent['resource'] as string;
      const caseChanged = resource.replace(/^https:\/\/(erp|ERP)\./, (_match, host: string) => `https://${host === 'erp' ? 'Erp' : 'erp'}.`);
      relaxed['resource'] = pick(g, [`${resource}/2026`, `${resource}/`, caseChanged, ...RESOURCES].filter((other) => other !== resource));
      return relaxed;
    }
    case 'drop a constraint': {
      const constraints = { ...(relaxed['constraints'] as JsonObject) };
      delete constraints[pick(g, parentConstraintKeys(parent))];
      relaxed['constraints'] = constraints;
      return relaxed;
    }
    case 'widen a constraint': {
      const key = pick(g, parentConstraintKeys(parent));
      const constraints = relaxed['constraints'] as JsonObject;
      constraints[key] = widenConstraint(g, key, (parent['constraints'] as JsonObject)[key]!, constraints[key]!);
      return relaxed;
    }
    default:
      relaxed['delegation'] = relaxDelegation(g, kind, parent, delegationBase(parent, child));
      return relaxed;
  }
}

/** A value of `key` broader than the parent's (or one no rule can read), keeping the child's other members. */
export function widenConstraint(g: Gen, key: string, parent: Json, child: Json): Json {
  const options: Json[] = [{ widened: true }];
  const shifted = (value: Json, by: bigint) => instantAt(instant(value)! - BASE_INSTANT_NS + by, pick(g, FORMS));
  if (key === 'time_window' && isObject(parent) && isObject(child)) {
    for (const [name, by] of [['not_before', -1n], ['not_after', 1n]] as const) {
      if (instant(parent[name] ?? null) === undefined) continue;
      options.push({ ...child, [name]: shifted(parent[name]!, by) });
      options.push(without(child, name));
    }
  }
  if (key === 'max_amount' && isObject(parent) && typeof parent['amount'] === 'string' && isObject(child)) {
    const amount = parent['amount'];
    options.push({ ...child, amount: amount.includes('.') ? `${amount}1` : `${amount}.001` }, { ...child, currency: parent['currency'] === 'EUR' ? 'USD' : 'EUR' });
  }
  if (key === 'data_classification' || key === 'recipient_domain') {
    const pool = key === 'data_classification' ? LABELS : DOMAINS;
    if (typeof parent === 'string') options.push(...pool.filter((label) => label !== parent), [parent], `sub.${parent}`);
    if (isStringArray(parent)) options.push([...parent, pick(g, [...pool.filter((label) => !parent.includes(label)), 'x-extra'])]);
  }
  if (key === 'allowed_tools' && Array.isArray(parent)) options.push([...(parent as Json[]), 'shell']);
  if (key === 'tenant' && typeof parent === 'string') options.push(`${parent}-2`);
  if ((key === 'resource_issued_after' || key === 'resource_issued_before') && instant(parent) !== undefined) {
    options.push(shifted(parent, key === 'resource_issued_after' ? -1n : 1n));
  }
  if (key === 'requires_action_approval' && parent === true) options.push(false);
  if (key === 'x_scope') options.push(...SCOPES.filter((scope) => JSON.stringify(scope) !== JSON.stringify(parent)));
  return pick(g, options);
}

/** The child's delegation, or (when it dropped it) the parent's without `children`, which is within. */
function delegationBase(parent: Entry, child: Entry): JsonObject {
  if (isObject(child['delegation'])) return copy(child['delegation']);
  return copy(without(parentDelegation(parent), 'children'));
}

function relaxDelegation(g: Gen, kind: Relaxation, parent: Entry, base: JsonObject): JsonObject {
  const delegation = parentDelegation(parent);
  const children = parentChildren(parent);
  const depth = (children?.['max_child_depth'] ?? 1) as number;
  switch (kind) {
    case 'raise max_depth': {
      const limit = delegation['max_depth'];
      // Spec 2.5 rule 3; and ADR 0022: a max_depth the parent does not state is never provable.
      return { ...base, max_depth: typeof limit === 'number' ? limit + between(g, 1, 3) : between(g, 0, 99) };
    }
    case 'drop max_depth':
      return without(base, 'max_depth');
    case 'widen allowed_delegates': {
      const allowed = delegation['allowed_delegates'];
      if (!Array.isArray(allowed)) return { ...base, allowed_delegates: someOf(g, MATCHERS) };
      const extra = [...MATCHERS, { sub_profile: 'x_other' }].filter((matcher) => !allowed.some((m) => JSON.stringify(m) === JSON.stringify(matcher)));
      return { ...base, allowed_delegates: [...(allowed as Json[]), pick(g, extra)] };
    }
    case 'add a delegation member the parent lacks':
      return { ...base, x_extra: 'granted' };
    case 'add children the parent does not permit':
      // At the depth limit no children at all; above it, children not reduced by one generation.
      return { ...base, children: depth < 2 ? pick<Json>(g, [{}, { max_child_depth: 1 }]) : { ...narrowChildren(g, children) ?? {}, max_child_depth: depth + pick(g, [0, 1]) } };
    default:
      return { ...base, children: widenChildren(g, children!, { ...(narrowChildren(g, children) ?? {}), ...(depth - 1 !== 1 ? { max_child_depth: depth - 1 } : {}) }) };
  }
}

function widenChildren(g: Gen, parent: JsonObject, child: JsonObject): JsonObject {
  const options: JsonObject[] = [{ ...child, x_more: 1 }, { ...child, child_creation_policy: parent['child_creation_policy'] === 'allow' ? 'deny' : 'allow' }];
  if (typeof parent['max_children'] === 'number') {
    options.push({ ...child, max_children: parent['max_children'] + 1 }, without(child, 'max_children'));
  }
  if (Array.isArray(parent['allowed_child_actors'])) {
    options.push({ ...child, allowed_child_actors: [...(parent['allowed_child_actors'] as Json[]), { sub_profile: 'x_other' }] }, without(child, 'allowed_child_actors'));
  }
  if (parent['child_creation_policy'] !== undefined) {
    options.push(without(child, 'child_creation_policy'));
  }
  return pick(g, options);
}
