/** How a retry waits: the first delay, doubled per attempt, capped. */
export interface BackoffPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * The one retry back-off of this code base: exponential with equal jitter (a random delay between half and
 * all of the doubled delay), capped — so replicas contending on one stream spread out. `attempt` counts from 1.
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
