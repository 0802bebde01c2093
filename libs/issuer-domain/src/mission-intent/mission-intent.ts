/**
 * The Mission Intent as this issuer accepts it (DESIGN 2.3, 2.4). The envelope is
 * `{"intent": {...}}` and both levels are **closed**: any other member is refused, so a client
 * cannot smuggle in fields that a consent page would not show or that nothing enforces.
 *
 * | member       | required | rule                                                                    |
 * |--------------|----------|-------------------------------------------------------------------------|
 * | `goal`       | yes      | string, 1–2000 characters, not only white space, no control characters  |
 * |              |          | other than tab, line feed and carriage return, well-formed Unicode      |
 * | `resources`  | yes      | array of 1–32 distinct absolute URIs (RFC 3986, no fragment), as given  |
 * | `expires_at` | yes      | RFC 3339 date-time, later than `now`, at most `maxLifetimeSeconds` after |
 * |              |          | `now`; returned as an ISO 8601 UTC string with milliseconds             |
 *
 * Intent is what the person reads and approves; it is not authority (authority is the
 * Authority Set derived from `authorization_details`).
 */
export interface MissionIntent {
  readonly goal: string;
  readonly resources: readonly string[];
  /** Normalised: `Date.prototype.toISOString()` form. */
  readonly expires_at: string;
}

export const MISSION_INTENT_LIMITS = {
  maxGoalLength: 2000,
  maxResources: 32,
} as const;
