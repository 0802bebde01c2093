import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) for JSON values as events hold them (what JSON.parse returns): byte for byte what
 * the `canonicalize` package produces. A value already in JCS order (the stored form) is one native
 * `JSON.stringify`; the usual new event (members in any order) is a copy with the members in JCS order and ONE
 * `JSON.stringify` of it — a quarter of the garbage of building the text member by member (one string per key and
 * per value, a cons string per `+=`, the native sort's work array) and about 40 % faster (issue 15: this function
 * was a fifth of what the 10k cascade allocated). What a copy cannot order (array-index keys, `__proto__`) and
 * anything that is not a JSON value — toJSON objects, undefined, functions, non-finite numbers, lone surrogates —
 * is left to `canonicalize` itself, which throws where it did before.
 */
export function canonicalJson(value: unknown): string {
  if (alreadyCanonical(value)) return JSON.stringify(value);
  const ordered = orderedCopy(value);
  if (ordered !== UNSUPPORTED) return JSON.stringify(ordered);
  const slow = canonicalize(value);
  if (slow === undefined) throw new TypeError('value cannot be canonicalized');
  return slow;
}

/** No lone surrogates (ES2024 `String.prototype.isWellFormed`, native in Node 20; not in this TS lib setting). */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

const UNSUPPORTED = Symbol('unsupported');
/**
 * Keys that a copy cannot put in JCS order: an array index ('0', '7', '10') is always enumerated first and in
 * numeric order by JSON.stringify, whatever the insertion order; `__proto__` assigned to a fresh object sets its
 * prototype instead of a member.
 */
const REORDERED_KEY = /^(?:0|[1-9][0-9]*)$|^__proto__$/;
/** Above this many members the native sort; below, an insertion sort in place (no work array). */
const INSERTION_SORT_MAX = 32;

/**
 * The value with every object's members inserted in JCS order (UTF-16 code units), so JSON.stringify writes the
 * canonical text; UNSUPPORTED when JSON.stringify would not (see REORDERED_KEY, lone surrogates, non-finite
 * numbers, undefined in an array, anything not a JSON value): then `canonicalize` answers.
 */
function orderedCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? value : UNSUPPORTED;
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : UNSUPPORTED;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const copy = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = orderedCopy(value[i]);
          if (item === UNSUPPORTED) return UNSUPPORTED;
          copy[i] = item;
        }
        return copy;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return UNSUPPORTED;
      const record = value as Record<string, unknown>;
      const keys = inJcsOrder(Object.keys(record));
      const copy: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const item = record[key];
        if (item === undefined) continue; // as JSON.stringify and canonicalize: absent
        if (!isWellFormed(key) || REORDERED_KEY.test(key)) return UNSUPPORTED;
        const ordered = orderedCopy(item);
        if (ordered === UNSUPPORTED) return UNSUPPORTED;
        copy[key] = ordered;
      }
      return copy;
    }
    default:
      return UNSUPPORTED;
  }
}

/** Sorts in place by UTF-16 code units (the default sort order of strings) and returns the array. */
function inJcsOrder(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * True when `JSON.stringify(value)` already is the JCS text: plain JSON values only, every object's keys in
 * JCS order (UTF-16 code units) and no lone surrogates. Events are stored in that form (validate-events.ts)
 * and JSON.parse keeps the order of the text, so on replay (mission-audit, chain checks) the hash input is
 * one native JSON.stringify instead of a sort and a string per member. Allocates nothing.
 */
function alreadyCanonical(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value);
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!alreadyCanonical(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      const record = value as Record<string, unknown>;
      let previous: string | undefined;
      // for…in yields own keys in property order (Object.prototype has no enumerable members); integer-like
      // keys come first in numeric order, which is not JCS order ('10' < '9') and fails the comparison.
      for (const key in record) {
        if ((previous !== undefined && !(previous < key)) || !isWellFormed(key)) return false;
        const item = record[key];
        if (item === undefined || !alreadyCanonical(item)) return false;
        previous = key;
      }
      return true;
    }
    default:
      return false;
  }
}
