import { copyJson, describeName, hasControlCharacters, isPlainObject, isWellFormedString, type JsonLimits, type JsonObject, type JsonValue } from '../shared/json.js';
import { absoluteUriProblem } from '../shared/uri.js';
import {
  MISSION_RESOURCE_ACCESS,
  normalizeAuthoritySet,
  type ActorMatcher,
  type AuthorityEntry,
  type AuthoritySet,
  type ChildrenPolicy,
  type DelegationPolicy,
} from './authority-set.js';
import { InvalidAuthorizationDetailsError } from './invalid-authorization-details.error.js';

/** Input limits. Generous for real missions, small enough that one request cannot make us do much work. */
export const AUTHORIZATION_DETAILS_LIMITS = {
  maxEntries: 32,
  maxActions: 64,
  maxActionLength: 256,
  maxMatchers: 32,
  maxMatcherMembers: 8,
  maxMatcherValueLength: 256,
  maxPolicyReferenceLength: 512,
  /** Nesting below `constraints` and unknown `delegation` / `children` members. */
  maxJsonDepth: 8,
  maxJsonStringLength: 2048,
  maxJsonMembers: 64,
  maxJsonArrayLength: 64,
  /** Values in the `constraints` and unknown delegation members of one entry, together. */
  maxJsonValuesPerEntry: 512,
} as const;

const L = AUTHORIZATION_DETAILS_LIMITS;
const ENTRY_MEMBERS = new Set(['type', 'resource', 'actions', 'constraints', 'delegation']);

/**
 * Validates an RFC 9396 `authorization_details` value (already JSON-parsed) strictly and returns
 * the normalised Authority Set (DESIGN 2.3). Every entry must be a `mission_resource_access` entry
 * with exactly the members `type`, `resource`, `actions` and optionally `constraints`,
 * `delegation`; anything else is refused. Unknown members *inside* `delegation` and
 * `delegation.children` are carried unchanged (spec 9.4, 2.4); whether they can be enforced is
 * decided at child creation, not here.
 *
 * @throws InvalidAuthorizationDetailsError
 */
export function parseAuthorizationDetails(value: unknown): AuthoritySet {
  const root = 'authorization_details';
  if (!Array.isArray(value)) fail(root, 'must be a JSON array');
  if (value.length === 0) fail(root, 'must contain at least one entry');
  if (value.length > L.maxEntries) fail(root, `must contain at most ${L.maxEntries} entries`);
  return normalizeAuthoritySet(value.map((entry, index) => parseEntry(entry, `${root}[${index}]`)));
}

function parseEntry(value: unknown, path: string): AuthorityEntry {
  if (!isPlainObject(value)) fail(path, 'must be a JSON object');
  if (!Object.hasOwn(value, 'type')) fail(path, 'is missing the member type');
  const type = value['type'];
  if (typeof type !== 'string' || type.length === 0) fail(`${path}.type`, 'must be a non-empty string');
  if (type !== MISSION_RESOURCE_ACCESS) fail(`${path}.type`, `${describeName(type)} is not a supported type (supported: ${MISSION_RESOURCE_ACCESS})`);
  for (const name of Object.keys(value)) {
    if (!ENTRY_MEMBERS.has(name)) fail(path, `${describeName(name)} is not a member of a ${MISSION_RESOURCE_ACCESS} entry`);
  }

  if (!Object.hasOwn(value, 'resource')) fail(path, 'is missing the member resource');
  const resourceProblem = absoluteUriProblem(value['resource']);
  if (resourceProblem) fail(`${path}.resource`, resourceProblem);

  if (!Object.hasOwn(value, 'actions')) fail(path, 'is missing the member actions');
  const actions = parseActions(value['actions'], `${path}.actions`);

  const limits = jsonLimits();
  const entry: { -readonly [K in keyof AuthorityEntry]: AuthorityEntry[K] } = {
    type: MISSION_RESOURCE_ACCESS,
    resource: value['resource'] as string,
    actions,
  };
  if (Object.hasOwn(value, 'constraints')) {
    const constraints = value['constraints'];
    if (!isPlainObject(constraints)) fail(`${path}.constraints`, 'must be a JSON object');
    entry.constraints = copyJson(constraints, `${path}.constraints`, limits, fail) as JsonObject;
  }
  if (Object.hasOwn(value, 'delegation')) entry.delegation = parseDelegation(value['delegation'], `${path}.delegation`, limits);
  return entry;
}

function parseActions(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) fail(path, 'must be a JSON array of strings');
  if (value.length === 0) fail(path, 'must contain at least one action');
  if (value.length > L.maxActions) fail(path, `must contain at most ${L.maxActions} actions`);
  return value.map((action, index) => {
    if (typeof action !== 'string' || action.length === 0 || action.length > L.maxActionLength) {
      fail(`${path}[${index}]`, `must be a non-empty string of at most ${L.maxActionLength} characters`);
    }
    if (hasControlCharacters(action) || !isWellFormedString(action)) fail(`${path}[${index}]`, 'must not contain control characters or lone surrogates');
    return action;
  });
}

function parseDelegation(value: unknown, path: string, limits: JsonLimits): DelegationPolicy {
  if (!isPlainObject(value)) fail(path, 'must be a JSON object');
  const delegation: Record<string, JsonValue> = {};
  for (const name of Object.keys(value)) {
    const member = value[name];
    const memberPath = `${path}.${name}`;
    switch (name) {
      case 'max_depth':
        delegation[name] = integer(member, memberPath, 0);
        break;
      case 'allowed_delegates':
        delegation[name] = matchers(member, memberPath);
        break;
      case 'children':
        delegation[name] = parseChildren(member, memberPath, limits);
        break;
      default:
        delegation[name] = carryUnknown(name, member, path, limits);
    }
  }
  return delegation as DelegationPolicy;
}

function parseChildren(value: unknown, path: string, limits: JsonLimits): ChildrenPolicy {
  if (!isPlainObject(value)) fail(path, 'must be a JSON object');
  const children: Record<string, JsonValue> = {};
  for (const name of Object.keys(value)) {
    const member = value[name];
    const memberPath = `${path}.${name}`;
    switch (name) {
      case 'max_children':
      case 'max_child_depth':
        children[name] = integer(member, memberPath, 1);
        break;
      case 'allowed_child_actors':
        children[name] = matchers(member, memberPath);
        break;
      case 'child_creation_policy':
        if (typeof member !== 'string' || member.length === 0 || member.length > L.maxPolicyReferenceLength || hasControlCharacters(member)) {
          fail(memberPath, `must be a non-empty string of at most ${L.maxPolicyReferenceLength} characters`);
        }
        children[name] = member;
        break;
      default:
        children[name] = carryUnknown(name, member, path, limits);
    }
  }
  return children as ChildrenPolicy;
}

/** Spec 9.4: unknown `delegation` members are carried unchanged (copied within limits). */
function carryUnknown(name: string, value: unknown, path: string, limits: JsonLimits): JsonValue {
  if (name === '__proto__') fail(path, 'must not have a member named __proto__');
  return copyJson(value, `${path}.${/^[A-Za-z0-9_.:-]{1,64}$/.test(name) ? name : '?'}`, limits, fail);
}

function integer(value: unknown, path: string, minimum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    fail(path, minimum === 0 ? 'must be a non-negative integer' : 'must be a positive integer');
  }
  return value;
}

function matchers(value: unknown, path: string): ActorMatcher[] {
  if (!Array.isArray(value)) fail(path, 'must be a JSON array of matcher objects');
  if (value.length > L.maxMatchers) fail(path, `must contain at most ${L.maxMatchers} matchers`);
  return value.map((matcher, index) => {
    const matcherPath = `${path}[${index}]`;
    if (!isPlainObject(matcher)) fail(matcherPath, 'must be a JSON object');
    const names = Object.keys(matcher);
    if (names.length === 0 || names.length > L.maxMatcherMembers) fail(matcherPath, `must have between 1 and ${L.maxMatcherMembers} members`);
    const copy: Record<string, string> = {};
    for (const name of names) {
      const member = matcher[name];
      if (name === '__proto__' || name.length > 64 || !isWellFormedString(name)) fail(matcherPath, 'has an unsupported member name');
      if (typeof member !== 'string' || member.length === 0 || member.length > L.maxMatcherValueLength || hasControlCharacters(member) || !isWellFormedString(member)) {
        fail(`${matcherPath}.${/^[A-Za-z0-9_.:-]{1,64}$/.test(name) ? name : '?'}`, `must be a non-empty string of at most ${L.maxMatcherValueLength} characters`);
      }
      copy[name] = member;
    }
    return copy;
  });
}

function jsonLimits(): JsonLimits {
  return {
    maxDepth: L.maxJsonDepth,
    maxStringLength: L.maxJsonStringLength,
    maxMembers: L.maxJsonMembers,
    maxArrayLength: L.maxJsonArrayLength,
    budget: { nodes: L.maxJsonValuesPerEntry },
  };
}

function fail(path: string, rule: string): never {
  throw new InvalidAuthorizationDetailsError(`${path} ${rule}`);
}
