import type { AuthorityEntry, AuthoritySet } from '../authority-set/authority-set.js';
import { describeName } from '../shared/json.js';
import { constraintNoBroader } from './constraint-rules.js';
import { delegationObstacle } from './delegation-rules.js';

/** Which parent entry justified which child entry (spec 5 rule 7: evidence records it). */
export interface SubsetJustification {
  readonly childIndex: number;
  readonly parentIndex: number;
}

export type StrictSubsetDenialReason = 'not_strict_subset' | 'delegation_not_permitted';

export type StrictSubsetResult =
  | { readonly ok: true; readonly justifications: readonly SubsetJustification[] }
  | {
      readonly ok: false;
      readonly reason: StrictSubsetDenialReason;
      /** The first child entry (in order) that no parent entry justifies. */
      readonly childIndex: number;
      /** Safe for `error_description`: names members, never quotes values. */
      readonly detail: string;
    };

export interface StrictSubsetContext {
  /** Prefix of `detail`, naming the child set in the request. Default `authorization_details`. */
  readonly childSetName?: string;
}

/**
 * Spec 2.5 / DESIGN 2.4 "Subset rule", entry-wise with no relaxation: every child entry must be
 * justified by some parent entry that carries `delegation.children` (spec 2.4, 2.5 rule 4). The
 * justifying parent entry is the first, in parent order, that justifies the child entry.
 *
 * A child entry no parent entry justifies refuses the whole set: `delegation_not_permitted` when some
 * parent entry would justify it but for lacking `delegation.children`, else `not_strict_subset`
 * (spec 2.5 rule 7). Pure: compares values only.
 */
export function checkStrictSubset(parent: AuthoritySet, child: AuthoritySet, context: StrictSubsetContext = {}): StrictSubsetResult {
  const setName = context.childSetName ?? 'authorization_details';
  const justifications: SubsetJustification[] = [];
  for (const [childIndex, childEntry] of child.entries()) {
    let delegationOnly = false;
    let firstObstacle: string | undefined;
    let parentIndex = -1;
    for (const [index, parentEntry] of parent.entries()) {
      const obstacle = authorityObstacle(parentEntry, childEntry);
      const delegable = parentEntry.delegation?.children !== undefined;
      if (obstacle === undefined && delegable) {
        parentIndex = index;
        break;
      }
      if (obstacle === undefined) delegationOnly = true;
      else if (firstObstacle === undefined && sameTypeAndResource(parentEntry, childEntry)) firstObstacle = obstacle;
    }
    if (parentIndex >= 0) {
      justifications.push({ childIndex, parentIndex });
      continue;
    }
    const prefix = `${setName}[${childIndex}]`;
    if (delegationOnly) {
      return { ok: false, reason: 'delegation_not_permitted', childIndex, detail: `${prefix}: the applicable parent entry's delegation carries no children object` };
    }
    return {
      ok: false,
      reason: 'not_strict_subset',
      childIndex,
      detail: `${prefix} is not a strict subset of any parent entry: ${firstObstacle ?? 'no parent entry has the same type and resource'}`,
    };
  }
  return { ok: true, justifications };
}

/**
 * DESIGN 2.4 subset rule for one pair of entries, without the `children` presence check: `undefined`
 * when `child` is no broader than `parent`, else a short reason naming the member.
 */
export function authorityObstacle(parent: AuthorityEntry, child: AuthorityEntry): string | undefined {
  // Same `type`; `resource` byte-equal (spec 2.5 rule 6: no resource containment).
  if (!sameTypeAndResource(parent, child)) return 'no parent entry has the same type and resource';
  // Child `actions` ⊆ parent `actions` (spec 2.5 rule 6: no action-family narrowing).
  if (!child.actions.every((action) => parent.actions.includes(action))) return 'actions include an action the parent entry does not grant';
  // Every parent constraint present in the child, no broader; child-only constraints are narrowings.
  const parentConstraints = parent.constraints ?? {};
  const childConstraints = child.constraints ?? {};
  for (const key of Object.keys(parentConstraints)) {
    const p = parentConstraints[key];
    if (p === undefined) continue;
    const c = childConstraints[key];
    if (c === undefined) return `constraint ${describeName(key)} of the parent entry is missing`;
    if (!constraintNoBroader(key, p, c)) return `constraint ${describeName(key)} is broader than the parent entry's or cannot be compared`;
  }
  return delegationObstacle(parent.delegation, child.delegation);
}

function sameTypeAndResource(parent: AuthorityEntry, child: AuthorityEntry): boolean {
  return parent.type === child.type && parent.resource === child.resource;
}

/** DESIGN 2.4, spec 2.1: the child's effective `expires_at` = min(requested, parent's `expires_at`). */
export function childExpiry(requested: Date, parentExpiresAt: Date): Date {
  return new Date(Math.min(requested.getTime(), parentExpiresAt.getTime()));
}
