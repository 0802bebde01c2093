/** Authority Sets of the demo story (DESIGN 2.3 `mission_resource_access` entries). */
import type { AuthorityEntry } from '@mission/mission-client';

export const INVOICES = 'https://erp.example.com/invoices';
export const REDIRECT_URI = 'http://127.0.0.1:9000/cb';

/** The root: read and write, delegable two generations down. */
export const ROOT_AUTHORITY: AuthorityEntry[] = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.write'], delegation: { max_depth: 2, children: { max_child_depth: 2, max_children: 5 } } },
];

/** A child that may delegate once more (its `children` one generation shorter, spec 2.4). */
export const DELEGATING_CHILD: AuthorityEntry[] = [
  { type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'], delegation: { max_depth: 2, children: { max_child_depth: 1, max_children: 5 } } },
];

/** A child that delegates nothing further. */
export const LEAF: AuthorityEntry[] = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read'] }];

/** Over-broad: an action the parent does not hold (spec 2.5 → `not_strict_subset`). */
export const OVER_BROAD: AuthorityEntry[] = [{ type: 'mission_resource_access', resource: INVOICES, actions: ['invoices.read', 'invoices.delete'] }];

export const inMinutes = (minutes: number): Date => new Date(Date.now() + minutes * 60_000);
