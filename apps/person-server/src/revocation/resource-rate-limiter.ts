/**
 * Spec 4.4 rule 2 ("rate limited"): at most `perSecond` revocation calls start per resource origin per
 * second, across all missions of this replica. Callers wait for their slot instead of failing: a
 * queue of revocations to one resource drains at the configured rate.
 */
export class ResourceRateLimiter {
  private readonly nextSlotMs = new Map<string, number>();
  private readonly intervalMs: number;

  constructor(
    perSecond: number,
    private readonly nowMs: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    this.intervalMs = 1000 / perSecond;
  }

  /** Resolves when a call to `endpoint`'s origin may start. */
  async acquire(endpoint: string): Promise<void> {
    const origin = originOf(endpoint);
    const now = this.nowMs();
    const slot = Math.max(now, this.nextSlotMs.get(origin) ?? now);
    this.nextSlotMs.set(origin, slot + this.intervalMs);
    if (this.nextSlotMs.size > 10_000) this.forgetIdle(now);
    const wait = slot - now;
    if (wait >= 1) await this.sleep(wait);
  }

  private forgetIdle(now: number): void {
    for (const [origin, next] of this.nextSlotMs) if (next < now) this.nextSlotMs.delete(origin);
  }
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
