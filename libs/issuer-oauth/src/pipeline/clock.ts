/** Time comes from an injected clock, never from `Date.now()`, so every window is testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Seconds since the epoch, as JWT NumericDate values are (RFC 7519 §2). */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
