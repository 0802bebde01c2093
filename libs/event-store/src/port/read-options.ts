import { InvalidEventError } from './errors.js';
import type { Position } from './position.js';

/** `maxCount` of a read, checked the same way by both adapters; unlimited when absent. */
export function readLimit(maxCount: number | undefined): number {
  if (maxCount === undefined) return Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(maxCount) || maxCount < 0) throw new InvalidEventError(`maxCount must be a non-negative integer, got ${maxCount}`);
  return maxCount;
}

/** A caller's position (`after`), checked: both halves non-negative bigints. */
export function checkedPosition(position: Position, name: string): Position {
  const valid = (half: unknown) => typeof half === 'bigint' && half >= 0n;
  if (!valid(position?.commit) || !valid(position?.prepare)) throw new InvalidEventError(`${name} must be a position with bigint commit and prepare`);
  return { commit: position.commit, prepare: position.prepare };
}
