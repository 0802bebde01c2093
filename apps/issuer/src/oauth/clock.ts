import type { Clock } from '@mission/issuer-oauth';
import { systemClock } from '@mission/issuer-oauth';

/** Injection token for the issuer's clock: every decision takes its time from here (tests substitute it). */
export const CLOCK = Symbol('Clock');
export const clockProvider = { provide: CLOCK, useValue: systemClock satisfies Clock };
