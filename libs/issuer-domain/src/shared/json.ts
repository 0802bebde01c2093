import { isPlainObject } from '@mission/decider';
/** Plain JSON values, as event data and authorization details carry them. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | readonly JsonValue[] | JsonObject;
/** Members may be declared optional (`undefined` means absent, as in `JSON.stringify`). */
export interface JsonObject {
  readonly [member: string]: JsonValue | undefined;
}

/** Bounds for copying untrusted JSON (arbitrary `constraints`, unknown `delegation` members). */
export interface JsonLimits {
  readonly maxDepth: number;
  readonly maxStringLength: number;
  readonly maxMembers: number;
  readonly maxArrayLength: number;
  /** Shared budget of values across one copy (mutated). */
  readonly budget: { nodes: number };
}

export { isPlainObject } from '@mission/decider';

/**
 * Characters safe to quote in an OAuth `error_description` (RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E).
 * Messages built from input quote a member name only when it passes this test.
 */
const SAFE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
export function describeName(name: string): string {
  return SAFE_NAME.test(name) ? `'${name}'` : 'a member with an unsupported name';
}

/** A lone UTF-16 surrogate cannot be encoded as UTF-8, so the canonical form would be ambiguous. */
const LONE_SURROGATE = /\p{Cs}/u;
export function isWellFormedString(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/**
 * C0 and C1 control characters and DEL; with `allowLineBreaks`, tab, line feed and carriage return
 * are allowed (free text such as a goal or a reason).
 */
export function hasControlCharacters(value: string, allowLineBreaks = false): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (allowLineBreaks && (code === 0x09 || code === 0x0a || code === 0x0d)) continue;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/**
 * Deep-copies an untrusted JSON value into fresh plain objects and arrays, checking limits.
 * `fail(path, rule)` must throw. `__proto__` member names are refused: copying them would change
 * an object's prototype, and no authorization detail needs one.
 */
export function copyJson(value: unknown, path: string, limits: JsonLimits, fail: (path: string, rule: string) => never, depth = 0): JsonValue {
  if (--limits.budget.nodes < 0) fail(path, 'too many values in total');
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(path, 'must be a finite number');
    return value;
  }
  if (typeof value === 'string') {
    if (value.length > limits.maxStringLength) fail(path, `must be at most ${limits.maxStringLength} characters`);
    if (!isWellFormedString(value)) fail(path, 'must be well-formed Unicode');
    return value;
  }
  if (depth >= limits.maxDepth) fail(path, `nests deeper than ${limits.maxDepth} levels`);
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) fail(path, `must have at most ${limits.maxArrayLength} elements`);
    return value.map((element, index) => copyJson(element, `${path}[${index}]`, limits, fail, depth + 1));
  }
  if (!isPlainObject(value)) fail(path, 'must be a JSON value');
  const names = Object.keys(value);
  if (names.length > limits.maxMembers) fail(path, `must have at most ${limits.maxMembers} members`);
  const copy: Record<string, JsonValue> = {};
  for (const name of names) {
    if (name === '__proto__') fail(path, 'must not have a member named __proto__');
    if (name.length > limits.maxStringLength || !isWellFormedString(name)) fail(path, 'has a member name that is too long or not well-formed');
    copy[name] = copyJson(value[name], `${path}.${SAFE_NAME.test(name) ? name : '?'}`, limits, fail, depth + 1);
  }
  return copy;
}
