import canonicalize from 'canonicalize';

/**
 * An independent oracle for spec 2.5 / DESIGN 2.4 "is this child entry provably within that parent
 * entry?", written for the property tests from the spec text alone: it shares no code with
 * `subset/*` (own equality through RFC 8785 canonical JSON, own date-time and decimal arithmetic in
 * BigInt). It is deliberately plain and may be stricter than the rule, never looser: it accepts
 * only what the spec or DESIGN gives a meaning that makes the child no broader.
 */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [member: string]: Json };
type JsonObject = { readonly [member: string]: Json };

const same = (a: Json | undefined, b: Json | undefined): boolean => a !== undefined && b !== undefined && canonicalize(a) === canonicalize(b);
const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const isArray = (value: Json | undefined): value is readonly Json[] => Array.isArray(value);
const isStringArray = (value: Json | undefined): value is readonly string[] => isArray(value) && value.every((item) => typeof item === 'string');
const within = (child: readonly Json[], parent: readonly Json[]) => child.every((item) => parent.some((candidate) => same(item, candidate)));

/** Does any parent entry that carries `delegation.children` prove the child entry? (spec 2.4, 2.5 rules 1 and 4) */
export function provedBySomeDelegableEntry(parentSet: readonly JsonObject[], child: JsonObject): boolean {
  return parentSet.some((parent) => isDelegable(parent) && entryWithin(parent, child));
}

export const isDelegable = (entry: JsonObject): boolean => isObject(entry['delegation']) && isObject(entry['delegation']['children']);

/** One entry in one entry: same type and resource, actions ⊆, every parent constraint kept no broader, delegation no broader. */
export function entryWithin(parent: JsonObject, child: JsonObject): boolean {
  if (parent['type'] !== child['type'] || parent['resource'] !== child['resource']) return false;
  if (!isArray(parent['actions']) || !isArray(child['actions']) || !within(child['actions'], parent['actions'])) return false;
  const parentConstraints = isObject(parent['constraints']) ? parent['constraints'] : {};
  const childConstraints = isObject(child['constraints']) ? child['constraints'] : {};
  for (const [key, value] of Object.entries(parentConstraints)) {
    if (!constraintWithin(key, value, childConstraints[key])) return false;
  }
  return delegationWithin(parent['delegation'], child['delegation']);
}

export function constraintWithin(key: string, parent: Json, child: Json | undefined): boolean {
  if (child === undefined) return false;
  if (same(parent, child)) return true;
  switch (key) {
    case 'time_window':
      return windowWithin(parent, child);
    case 'max_amount':
      return amountWithin(parent, child);
    case 'allowed_tools':
      return isArray(parent) && isArray(child) && within(child, parent);
    case 'data_classification':
    case 'recipient_domain':
      return isStringArray(parent) && isStringArray(child) && within(child, parent);
    case 'resource_issued_after':
      return compareInstants(child, parent) >= 0;
    case 'resource_issued_before':
      return compareInstants(child, parent) <= 0;
    case 'requires_action_approval':
      return parent === false && child === true;
    default:
      return false; // tenant and every key without rules: only equal values are provable
  }
}

function windowWithin(parent: Json, child: Json): boolean {
  if (!isObject(parent) || !isObject(child)) return false;
  const bounds = ['not_before', 'not_after'];
  if ([...Object.keys(parent), ...Object.keys(child)].some((name) => !bounds.includes(name))) return false;
  return bounds.every((name) => {
    const p = parent[name];
    const c = child[name];
    if (p === undefined) return c === undefined || instant(c) !== undefined;
    if (c === undefined) return false;
    if (same(p, c)) return true;
    const order = compareInstants(c, p);
    return name === 'not_before' ? order >= 0 : order <= 0;
  });
}

function amountWithin(parent: Json, child: Json): boolean {
  if (!isObject(parent) || !isObject(child)) return false;
  const names = (value: JsonObject) => Object.keys(value).sort().join();
  if (names(parent) !== 'amount,currency' || names(child) !== 'amount,currency') return false;
  if (typeof parent['currency'] !== 'string' || parent['currency'] !== child['currency']) return false;
  const p = decimal(parent['amount']);
  const c = decimal(child['amount']);
  return p !== undefined && c !== undefined && c <= p;
}

function delegationWithin(parent: Json | undefined, child: Json | undefined): boolean {
  if (child === undefined) return true;
  if (!isObject(parent) || !isObject(child)) return false;
  for (const name of new Set([...Object.keys(parent), ...Object.keys(child)])) {
    const p = parent[name];
    const c = child[name];
    if (name === 'children') {
      if (c !== undefined && !childrenWithin(p, c)) return false;
    } else if (name === 'max_depth') {
      // Absent in the parent says nothing, so nothing may be added (ADR 0022).
      if (!(p === undefined ? c === undefined : typeof p === 'number' && typeof c === 'number' && c <= p)) return false;
    } else if (name === 'allowed_delegates') {
      if (!(p === undefined ? c === undefined : isArray(p) && isArray(c) && within(c, p))) return false;
    } else if (!same(p, c)) {
      return false; // members not understood travel unchanged (spec 2.4, 9.4)
    }
  }
  return true;
}

function childrenWithin(parent: Json | undefined, child: Json): boolean {
  if (!isObject(parent) || !isObject(child)) return false;
  const parentDepth = parent['max_child_depth'] ?? 1;
  const childDepth = child['max_child_depth'] ?? 1;
  if (typeof parentDepth !== 'number' || parentDepth < 2 || childDepth !== parentDepth - 1) return false;
  for (const name of new Set([...Object.keys(parent), ...Object.keys(child)])) {
    const p = parent[name];
    const c = child[name];
    if (name === 'max_child_depth') continue;
    if (name === 'max_children') {
      // Spec 2.4 rule 4: absent means no bound on breadth, so any child cap narrows.
      if (p !== undefined && !(typeof p === 'number' && typeof c === 'number' && c <= p)) return false;
    } else if (name === 'allowed_child_actors') {
      if (p !== undefined && !(isArray(p) && isArray(c) && within(c, p))) return false;
    } else if (!(p === undefined && c === undefined) && !same(p, c)) {
      return false; // child_creation_policy and members not understood: the same or none
    }
  }
  return true;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Nanoseconds since the epoch, for the date-time forms the generators write; `undefined` for anything else. */
export function instant(value: Json): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 28 || hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = match[8] === 'Z' ? 0 : (match[9] === '-' ? -1 : 1) * (Number(match[10]) * 60 + Number(match[11]));
  const millis = BigInt(Date.UTC(year, month - 1, day, hour, minute, second)) - BigInt(offset) * 60_000n;
  return millis * 1_000_000n + BigInt((match[7] ?? '').padEnd(9, '0'));
}

function compareInstants(a: Json, b: Json): number {
  const left = instant(a);
  const right = instant(b);
  if (left === undefined || right === undefined) return Number.NaN; // every comparison with NaN is false
  return left === right ? 0 : left < right ? -1 : 1;
}

/** A plain decimal string as a BigInt in units of 10^-30; `undefined` for anything else. */
export function decimal(value: Json | undefined): bigint | undefined {
  if (typeof value !== 'string' || !/^\d+(\.\d{1,30})?$/.test(value)) return undefined;
  const [integer, fraction = ''] = value.split('.');
  return BigInt(integer!) * 10n ** 30n + BigInt(fraction.padEnd(30, '0'));
}
