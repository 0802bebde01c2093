import type { JsonValue } from '../shared/json.js';

/**
 * Deep equality of two JSON values: same primitives, arrays element by element, objects with the
 * same set of members (order-independent; a member whose value is `undefined` counts as absent).
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    const right: readonly JsonValue[] = b;
    return (a as readonly JsonValue[]).every((element, index) => jsonEqual(element, right[index]));
  }
  const left = a as { readonly [member: string]: JsonValue | undefined };
  const right = b as { readonly [member: string]: JsonValue | undefined };
  const leftNames = definedNames(left);
  const rightNames = definedNames(right);
  if (leftNames.length !== rightNames.length) return false;
  return leftNames.every((name) => Object.hasOwn(right, name) && jsonEqual(left[name], right[name]));
}

/** Every element of `child` is deep-equal to some element of `parent` (set inclusion, order-free). */
export function jsonSubsetOf(child: readonly JsonValue[], parent: readonly JsonValue[]): boolean {
  return child.every((element) => parent.some((candidate) => jsonEqual(element, candidate)));
}

function definedNames(value: { readonly [member: string]: JsonValue | undefined }): string[] {
  return Object.keys(value).filter((name) => value[name] !== undefined);
}
