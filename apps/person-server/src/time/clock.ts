/** The time source of every Person Server decision: `created` windows, token expiry, rate limits, audit times. */
export interface Clock {
  now(): Date;
}

/** Injection token for the Person Server's {@link Clock}; tests substitute a fixed or stepping clock. */
export const CLOCK = Symbol('Clock');

export const systemClock: Clock = { now: () => new Date() };

export const clockProvider = { provide: CLOCK, useValue: systemClock };
