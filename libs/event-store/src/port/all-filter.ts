import type { AllFilter } from './event-store.js';
import { InvalidEventError } from './errors.js';
import { isValidCategory } from './stream-name.js';
import { isValidEventType } from './validate-events.js';

/** A filter both adapters read the same way: undefined members match everything; an empty list matches nothing. */
export interface CheckedFilter {
  readonly categories: readonly string[] | undefined;
  readonly types: readonly string[] | undefined;
}

/**
 * Validates a filter once for both adapters (an invalid category or type is an InvalidEventError,
 * never a silently empty read) and drops repeats, which would otherwise read a range twice.
 */
export function checkAllFilter(filter: AllFilter | undefined): CheckedFilter {
  return {
    categories: checkedList(filter?.streamCategories, 'streamCategories', isValidCategory, 'stream category'),
    types: checkedList(filter?.eventTypes, 'eventTypes', isValidEventType, 'event type'),
  };
}

export function matchesNothing(filter: CheckedFilter): boolean {
  return filter.categories?.length === 0 || filter.types?.length === 0;
}

function checkedList(
  list: readonly string[] | undefined,
  member: string,
  valid: (value: string) => boolean,
  what: string,
): readonly string[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw new InvalidEventError(`filter.${member} must be an array`);
  for (const value of list) {
    if (typeof value !== 'string' || !valid(value)) throw new InvalidEventError(`invalid ${what} in filter: ${JSON.stringify(value)}`);
  }
  return [...new Set(list)];
}
