import type { Clock } from '@mission/decider';

export type { Clock } from '@mission/decider';

export const systemClock: Clock = { now: () => new Date() };

/** Seconds since the epoch, as JWT NumericDate values are (RFC 7519 §2). */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
