import { TokenBuckets } from './rate-limiter.js';
import { RateLimitedProblem } from '../errors/problems.js';
import type { Clock } from '../time/clock.js';

/** Spec 5.9, 8: failed management lookups (malformed or unknown/unauthorized references) a caller may make per minute. */
export const PROBE_FAILURES_PER_MINUTE = 60;

/**
 * Spec 5.9 / 8 ("repeated malformed or unknown-reference requests rate limited"): each failed lookup
 * takes a token from the caller's bucket; once it is empty, the caller's management operations are
 * refused with `429 rate_limited` *before* any lookup — whatever the reference — until it refills, so
 * the limit itself reveals nothing about any mission. Per replica, in memory, like {@link TokenBuckets}.
 */
export class ProbeLimiter {
  private readonly failures: TokenBuckets;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    perMinute = PROBE_FAILURES_PER_MINUTE,
    private readonly maxKeys = 100_000,
  ) {
    this.failures = new TokenBuckets({ perMinute, maxKeys });
  }

  /** Before any lookup: throws RateLimitedProblem while the caller is blocked. */
  check(callerKey: string): void {
    const until = this.blockedUntil.get(callerKey);
    if (until === undefined) return;
    const now = this.clock.now().getTime();
    if (now >= until) {
      this.blockedUntil.delete(callerKey);
      return;
    }
    throw new RateLimitedProblem((until - now) / 1000);
  }

  /** After a failed lookup. */
  recordFailure(callerKey: string): void {
    const now = this.clock.now().getTime();
    const taken = this.failures.take(callerKey, now);
    if (taken.allowed) return;
    if (this.blockedUntil.size >= this.maxKeys) this.blockedUntil.delete(this.blockedUntil.keys().next().value as string);
    this.blockedUntil.set(callerKey, now + taken.retryAfterSeconds * 1000);
  }
}
