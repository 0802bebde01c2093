import { AMOUNTS, BASE_INSTANT_NS, CONSTRAINT_ARBITRARIES, CONSTRAINT_KEYS, FORMS, MATCHERS, OFFSETS_NS, instantAt, type Entry } from './subset-arbitraries.js';
import { between, coin, draw, pick, someOf, type Gen } from './subset-choices.js';
import { decimal, instant, type Json } from './subset-oracle.js';

export type { Gen } from './subset-choices.js';

/**
 * Narrowings: for a parent entry, a child entry that DESIGN 2.4 says is no broader (fewer actions,
 * tighter or added constraints, delegation dropped or narrowed, `children` decremented). The
 * property tests check that the rule accepts every one, then relax one of them (subset-relaxations.ts).
 */
type JsonObject = { [member: string]: Json };

export const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
export const isStringArray = (value: Json | undefined): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

export function narrowEntry(g: Gen, parent: Entry): Entry {
  const child: Entry = { type: parent['type']!, resource: parent['resource']!, actions: someOf(g, parent['actions'] as Json[], 1) };
  const constraints: JsonObject = {};
  const parentConstraints = isObject(parent['constraints']) ? parent['constraints'] : {};
  for (const [key, value] of Object.entries(parentConstraints)) constraints[key] = narrowConstraint(g, key, value);
  // DESIGN 2.4: a constraint the parent entry lacks is a narrowing.
  const added = someOf(g, CONSTRAINT_KEYS.filter((key) => !(key in parentConstraints)), 0, 2);
  for (const key of added) constraints[key] = draw(g, CONSTRAINT_ARBITRARIES[key]!);
  if (Object.keys(constraints).length > 0) child['constraints'] = constraints;
  const delegation = narrowDelegation(g, parent['delegation']);
  if (delegation !== undefined) child['delegation'] = delegation;
  return child;
}

export function narrowConstraint(g: Gen, key: string, parent: Json): Json {
  switch (key) {
    case 'time_window': {
      if (!isObject(parent) || Object.keys(parent).some((name) => name !== 'not_before' && name !== 'not_after')) return parent;
      if ([parent['not_before'], parent['not_after']].some((bound) => bound !== undefined && instant(bound) === undefined)) return parent;
      const window: JsonObject = {};
      const notBefore = parent['not_before'] === undefined ? (coin(g) ? undefined : anyInstant(g)) : boundNoBroader(g, parent['not_before'], 1);
      const notAfter = parent['not_after'] === undefined ? (coin(g) ? undefined : anyInstant(g)) : boundNoBroader(g, parent['not_after'], -1);
      if (notBefore !== undefined) window['not_before'] = notBefore;
      if (notAfter !== undefined) window['not_after'] = notAfter;
      return window;
    }
    case 'max_amount': {
      if (!isObject(parent) || Object.keys(parent).sort().join() !== 'amount,currency') return parent;
      const limit = decimal(parent['amount']);
      if (limit === undefined) return parent;
      return { amount: pick(g, [...AMOUNTS.filter((amount) => decimal(amount)! <= limit), parent['amount'] as string]), currency: parent['currency']! };
    }
    case 'allowed_tools':
      return Array.isArray(parent) ? someOf(g, parent as Json[]) : parent;
    case 'data_classification':
    case 'recipient_domain':
      return isStringArray(parent) ? someOf<Json>(g, parent) : parent;
    case 'resource_issued_after':
      return instant(parent) === undefined ? parent : boundNoBroader(g, parent, 1);
    case 'resource_issued_before':
      return instant(parent) === undefined ? parent : boundNoBroader(g, parent, -1);
    case 'requires_action_approval':
      return parent === false ? coin(g) : parent;
    default:
      return parent;
  }
}

/** The same bound, or one from the pool on the narrow side (`direction` 1: later, -1: earlier), in any form. */
function boundNoBroader(g: Gen, parent: Json, direction: 1 | -1): Json {
  const at = instant(parent)! - BASE_INSTANT_NS;
  const narrower = OFFSETS_NS.filter((offset) => (direction === 1 ? offset >= at : offset <= at));
  if (narrower.length === 0 || coin(g)) return parent;
  return instantAt(pick(g, narrower), pick(g, FORMS));
}

const anyInstant = (g: Gen): string => instantAt(pick(g, OFFSETS_NS), pick(g, FORMS));

export function narrowDelegation(g: Gen, parent: Json | undefined): Json | undefined {
  if (!isObject(parent) || between(g, 0, 3) === 0) return undefined;
  const child: JsonObject = {};
  for (const [name, value] of Object.entries(parent)) {
    if (name === 'max_depth') child[name] = between(g, 0, value as number);
    else if (name === 'allowed_delegates') child[name] = someOf(g, value as Json[]);
    else if (name === 'children') {
      const children = narrowChildren(g, value);
      if (children !== undefined) child[name] = children;
    } else child[name] = value; // members not understood travel unchanged
  }
  return child;
}

/** Spec 2.4: `max_child_depth` reduced by one (none at the limit), `max_children` ≤, actors ⊆, the same policy. */
export function narrowChildren(g: Gen, parent: Json | undefined): JsonObject | undefined {
  if (!isObject(parent)) return undefined;
  const depth = (parent['max_child_depth'] ?? 1) as number;
  if (depth < 2 || coin(g)) return undefined;
  const child: JsonObject = {};
  if (depth - 1 !== 1 || coin(g)) child['max_child_depth'] = depth - 1;
  const maxChildren = parent['max_children'];
  if (typeof maxChildren === 'number') child['max_children'] = between(g, 1, maxChildren);
  else if (coin(g)) child['max_children'] = between(g, 1, 4); // spec 2.4 rule 4: absent is no bound
  const actors = parent['allowed_child_actors'];
  if (Array.isArray(actors)) child['allowed_child_actors'] = someOf(g, actors as Json[]);
  else if (coin(g)) child['allowed_child_actors'] = someOf(g, MATCHERS);
  for (const [name, value] of Object.entries(parent)) {
    if (!['max_child_depth', 'max_children', 'allowed_child_actors'].includes(name)) child[name] = value;
  }
  return child;
}
