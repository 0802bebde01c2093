/** Time comes from an injected clock, never from `Date.now()`, so every window is testable (deciders take it in the command). */
export interface Clock {
  now(): Date;
}
