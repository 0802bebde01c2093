import { isPlainObject, type JsonValue } from '../shared/json.js';
import { parseRfc3339 } from '@mission/decider';
import { compareExactDecimals } from './exact-decimal.js';
import { jsonEqual, jsonSubsetOf } from './json-equal.js';

/**
 * A constraint rule answers: is the child entry's value of this constraint no broader than the
 * parent entry's? `false` whenever that cannot be proven (malformed or unexpected values), because
 * spec 2.5 rule 7 refuses what the issuer cannot prove. Deep-equal values are accepted before any
 * rule runs (spec 2.5 rule 1: per-entry equality is permitted).
 */
export type ConstraintRule = (parent: JsonValue, child: JsonValue) => boolean;

type JsonRecord = { readonly [member: string]: JsonValue | undefined };

/** DESIGN 2.4 / issuance draft `time_window`: the child's window lies inside the parent's (bounds inclusive). */
export const timeWindowRule: ConstraintRule = (parent, child) => {
  if (!isPlainObject(parent) || !isPlainObject(child)) return false;
  const p = parent as JsonRecord;
  const c = child as JsonRecord;
  if (!otherMembersEqual(p, c, ['not_before', 'not_after'])) return false;
  return bound(p['not_before'], c['not_before'], (order) => order >= 0) && bound(p['not_after'], c['not_after'], (order) => order <= 0);
};

/** DESIGN 2.4 / issuance draft `max_amount`: same currency, child amount ≤ parent amount (exact decimals). */
export const maxAmountRule: ConstraintRule = (parent, child) => {
  if (!isPlainObject(parent) || !isPlainObject(child)) return false;
  const p = parent as JsonRecord;
  const c = child as JsonRecord;
  if (!otherMembersEqual(p, c, ['amount', 'currency'])) return false;
  if (typeof p['currency'] !== 'string' || p['currency'] !== c['currency']) return false;
  if (typeof p['amount'] !== 'string' || typeof c['amount'] !== 'string') return false;
  const order = compareExactDecimals(c['amount'], p['amount']);
  return order !== undefined && order <= 0;
};

/** DESIGN 2.4 / issuance draft `tenant`: the child's tenant equals the parent's (no broader value exists). */
export const tenantRule: ConstraintRule = (parent, child) => jsonEqual(parent, child);

/** DESIGN 2.4 / issuance draft `allowed_tools`: the child's tools are a subset of the parent's. */
export const allowedToolsRule: ConstraintRule = (parent, child) => Array.isArray(parent) && Array.isArray(child) && jsonSubsetOf(child, parent);

/**
 * DESIGN 2.4 / issuance draft `data_classification`, compared as the core subset rule compares
 * labels (spec 2.5 rule 6, issue 11): a single label only equal, a set of labels only by inclusion.
 * No order of classes is assumed ("restricted" → "public" is not a narrowing we can prove).
 */
export const dataClassificationRule: ConstraintRule = (parent, child) => labelsNoBroader(parent, child);

/**
 * DESIGN 2.4 / issuance draft `recipient_domain`: a single domain only equal, a set of domains only by
 * inclusion; no subdomain containment (spec 2.5 rule 6), and a single domain is not read as a set.
 */
export const recipientDomainRule: ConstraintRule = (parent, child) => labelsNoBroader(parent, child);

/** DESIGN 2.4 / issuance draft `resource_issued_after`: the child's lower bound is the same or later. */
export const resourceIssuedAfterRule: ConstraintRule = (parent, child) => bound(parent, child, (order) => order >= 0);

/** DESIGN 2.4 / issuance draft `resource_issued_before`: the child's upper bound is the same or earlier. */
export const resourceIssuedBeforeRule: ConstraintRule = (parent, child) => bound(parent, child, (order) => order <= 0);

/** DESIGN 2.4 / issuance draft `requires_action_approval`: parent `true` ⇒ child `true`. */
export const requiresActionApprovalRule: ConstraintRule = (parent, child) => typeof parent === 'boolean' && typeof child === 'boolean' && (!parent || child);

/** DESIGN 2.4: every other constraint key must be equal (nothing else is decidable). */
export const equalRule: ConstraintRule = (parent, child) => jsonEqual(parent, child);

/** The rules by constraint key (DESIGN 2.4); keys not listed here use `equalRule`. */
export const CONSTRAINT_RULES: Readonly<Record<string, ConstraintRule>> = Object.freeze({
  time_window: timeWindowRule,
  max_amount: maxAmountRule,
  tenant: tenantRule,
  allowed_tools: allowedToolsRule,
  data_classification: dataClassificationRule,
  recipient_domain: recipientDomainRule,
  resource_issued_after: resourceIssuedAfterRule,
  resource_issued_before: resourceIssuedBeforeRule,
  requires_action_approval: requiresActionApprovalRule,
});

/** Is the child's value of constraint `key` no broader than the parent's? */
export function constraintNoBroader(key: string, parent: JsonValue, child: JsonValue): boolean {
  if (jsonEqual(parent, child)) return true;
  const rule = Object.hasOwn(CONSTRAINT_RULES, key) ? CONSTRAINT_RULES[key]! : equalRule;
  return rule(parent, child);
}

/**
 * A time bound: absent in the parent → absent in the child, or a date-time (a bound the parent lacks
 * narrows only if a consumer can read it; issue 11); present in the parent → present in the child and
 * `accept(compare(child, parent))`.
 */
function bound(parent: JsonValue | undefined, child: JsonValue | undefined, accept: (order: number) => boolean): boolean {
  if (parent === undefined) return child === undefined || (typeof child === 'string' && parseRfc3339(child) !== undefined);
  if (child === undefined) return false;
  if (jsonEqual(parent, child)) return true;
  if (typeof parent !== 'string' || typeof child !== 'string') return false;
  const order = compareInstants(child, parent);
  return order !== undefined && accept(order);
}

/**
 * Orders two RFC 3339 date-times exactly: by millisecond, then by the fraction digits beyond the
 * millisecond that `parseRfc3339` truncates (so a bound 0.1 µs earlier is still earlier).
 */
export function compareInstants(a: string, b: string): -1 | 0 | 1 | undefined {
  const left = parseRfc3339(a);
  const right = parseRfc3339(b);
  if (!left || !right) return undefined;
  if (left.getTime() !== right.getTime()) return left.getTime() < right.getTime() ? -1 : 1;
  const leftRest = subMillisecondDigits(a);
  const rightRest = subMillisecondDigits(b);
  if (leftRest === rightRest) return 0;
  return leftRest < rightRest ? -1 : 1;
}

function subMillisecondDigits(value: string): string {
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return fraction.slice(3).padEnd(6, '0');
}

/** Labels as the core rule compares them: two strings equal, or two arrays of strings by set inclusion; never one of each. */
function labelsNoBroader(parent: JsonValue, child: JsonValue): boolean {
  if (typeof parent === 'string' || typeof child === 'string') return typeof parent === 'string' && parent === child;
  return isStringArray(parent) && isStringArray(child) && jsonSubsetOf(child, parent);
}

function isStringArray(value: JsonValue): value is readonly string[] {
  return Array.isArray(value) && value.every((element) => typeof element === 'string');
}

/** Members of an object-valued constraint other than `known` must be equal (same names, deep-equal values). */
function otherMembersEqual(parent: JsonRecord, child: JsonRecord, known: readonly string[]): boolean {
  const others = (value: JsonRecord) => Object.fromEntries(Object.entries(value).filter(([name]) => !known.includes(name)));
  return jsonEqual(others(parent), others(child));
}
