import type { ChildrenPolicy, DelegationPolicy } from '../authority-set/authority-set.js';
import { describeName, type JsonValue } from '../shared/json.js';
import { jsonEqual, jsonSubsetOf } from './json-equal.js';

/** `max_child_depth` when an entry's `children` omits it (spec 2.4, spec 8). */
export const DEFAULT_MAX_CHILD_DEPTH = 1;

/**
 * Spec 2.5 rules 2–3, DESIGN 2.4: is the child entry's `delegation` no broader than the parent
 * entry's? Returns `undefined` when it is, else a short reason naming the member (never a value).
 * The presence of `children` on the parent (what permits child creation at all) is checked by the
 * caller; here a child `children` is compared only with a parent `children`.
 *
 * What the parent entry's `delegation` does not state, the child's may not add (spec 2.5 rules 2
 * and 7, ADR 0022): neither this profile nor DESIGN gives an absent `max_depth` or
 * `allowed_delegates` a meaning, so no child value can be proven no broader than "absent".
 */
export function delegationObstacle(parent: DelegationPolicy | undefined, child: DelegationPolicy | undefined): string | undefined {
  // DESIGN 2.4: `delegation` absent in the child is a narrowing; absent in the parent ⇒ absent in the child.
  if (child === undefined) return undefined;
  if (parent === undefined) return 'delegation is absent from the parent entry';
  for (const name of names(parent, child)) {
    const p = parent[name];
    const c = child[name];
    switch (name) {
      case 'max_depth':
        // Spec 2.5 rules 3 and 7: no greater. Absent in the parent is not "unbounded" (ADR 0022).
        if (p === undefined) return 'delegation.max_depth is not stated by the parent entry';
        if (typeof c !== 'number' || typeof p !== 'number' || c > p) return 'delegation.max_depth is missing or greater than the parent entry allows';
        break;
      case 'allowed_delegates':
        // Spec 2.5 rules 3 and 7: no wider. Absent in the parent is not "anyone" (ADR 0022).
        if (p === undefined) return 'delegation.allowed_delegates is not stated by the parent entry';
        if (!matchersSubset(p, c)) return 'delegation.allowed_delegates is missing or wider than the parent entry allows';
        break;
      case 'children': {
        if (c === undefined) break;
        if (parent.children === undefined) return 'delegation.children is absent from the parent entry';
        const obstacle = childrenObstacle(parent.children, child.children!);
        if (obstacle) return obstacle;
        break;
      }
      default:
        // Spec 2.4 / 9.4: members not understood are carried unchanged, so they must be equal.
        if (!jsonEqual(p, c)) return `delegation member ${describeName(name)} is not carried unchanged`;
    }
  }
  return undefined;
}

/**
 * DESIGN 2.4: the child's `children` is the parent's with `max_child_depth - 1`, `max_children` ≤,
 * `allowed_child_actors` ⊆ and the same `child_creation_policy`; none at the depth limit.
 */
export function childrenObstacle(parent: ChildrenPolicy, child: ChildrenPolicy): string | undefined {
  const parentDepth = parent.max_child_depth ?? DEFAULT_MAX_CHILD_DEPTH;
  // Spec 2.4: an entry at depth equal to the limit carries no `children`.
  if (parentDepth <= 1) return 'delegation.children is not permitted at the parent entry\'s max_child_depth';
  // Spec 2.4: reduced by exactly one per generation (default 1 when absent).
  if ((child.max_child_depth ?? DEFAULT_MAX_CHILD_DEPTH) !== parentDepth - 1) return 'delegation.children.max_child_depth is not the parent entry\'s reduced by one';
  for (const name of names(parent, child)) {
    const p = parent[name];
    const c = child[name];
    switch (name) {
      case 'max_child_depth':
        break; // checked above
      case 'max_children':
        // Spec 2.4: never broadened downstream. Unlike `max_depth`, the profile itself says what
        // absent means here (2.4 rule 4: no bound on breadth), so a child cap is a provable narrowing.
        if (p !== undefined && (typeof c !== 'number' || typeof p !== 'number' || c > p)) return 'delegation.children.max_children is missing or greater than the parent entry allows';
        break;
      case 'allowed_child_actors':
        // Spec 2.4: matchers as `allowed_delegates`, no wider. Absent in the parent admits any actor
        // (2.4: the member is what "constrains which actors"), so child matchers are a narrowing.
        if (p !== undefined && !matchersSubset(p, c)) return 'delegation.children.allowed_child_actors is missing or wider than the parent entry allows';
        break;
      case 'child_creation_policy':
        // DESIGN 2.4: the same policy reference (or none in both).
        if (p !== c) return 'delegation.children.child_creation_policy differs from the parent entry';
        break;
      default:
        // Spec 2.4: members not understood are carried unchanged.
        if (!jsonEqual(p, c)) return `delegation.children member ${describeName(name)} is not carried unchanged`;
    }
  }
  return undefined;
}

/** Matcher lists: every child matcher deep-equal to some parent matcher. */
function matchersSubset(parent: JsonValue | undefined, child: JsonValue | undefined): boolean {
  return Array.isArray(parent) && Array.isArray(child) && jsonSubsetOf(child, parent);
}

/** Member names of both objects (defined values only), parent's first, each once. */
function names(parent: { readonly [member: string]: unknown }, child: { readonly [member: string]: unknown }): string[] {
  const all = [...Object.keys(parent), ...Object.keys(child)];
  return [...new Set(all)].filter((name) => parent[name] !== undefined || child[name] !== undefined);
}
