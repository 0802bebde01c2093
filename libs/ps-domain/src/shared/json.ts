import { isPlainObject } from '@mission/decider';
import canonicalize from 'canonicalize';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { isWellFormedString } from './text.js';

/** Plain JSON values, as event data carries them. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | readonly JsonValue[] | JsonObject;
/** Members may be declared optional (`undefined` means absent, as in `JSON.stringify`). */
export interface JsonObject {
  readonly [member: string]: JsonValue | undefined;
}

export { isPlainObject } from '@mission/decider';

const MAX_JSON_DEPTH = 32;

/** Plain JSON all the way down: finite numbers, well-formed strings, plain objects and arrays, no `__proto__` member. */
export function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return isWellFormedString(value);
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.every((element) => isJsonValue(element, depth + 1));
  if (!isPlainObject(value)) return false;
  return Object.entries(value).every(([name, member]) => name !== '__proto__' && isWellFormedString(name) && (member === undefined || isJsonValue(member, depth + 1)));
}

export function isJsonObject(value: unknown): value is JsonObject {
  return isPlainObject(value) && isJsonValue(value);
}

/** RFC 8785 (JCS) text of a JSON value; members whose value is `undefined` are absent. */
export function canonicalJson(value: JsonValue): string {
  if (!isJsonValue(value)) throw new InvalidCommandError('value must be plain JSON to be canonicalized');
  const text = canonicalize(value);
  if (text === undefined) throw new InvalidCommandError('value cannot be canonicalized');
  return text;
}
