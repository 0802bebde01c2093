import type { Clock } from '../pipeline/clock.js';
import type { JtiRegistry, SingleUse } from './jti-registry.js';

/**
 * Per-process single use: a map of seen (kind, scope, jti) until each expires. **Only correct with one
 * replica** and forgets everything on restart (a proof captured just before a restart can be replayed
 * inside its acceptance window). For tests and single-replica resource servers; the issuer uses
 * EventStoreJtiRegistry.
 */
export class InMemoryJtiRegistry implements JtiRegistry {
  private readonly seen = new Map<string, number>();
  private nextSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly sweepEvery = 1024,
  ) {}

  async use(use: SingleUse): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (++this.nextSweep >= this.sweepEvery) this.sweep(now);
    const key = JSON.stringify([use.kind, use.scope, use.jti]);
    const until = this.seen.get(key);
    if (until !== undefined && until >= now) return false;
    this.seen.set(key, use.expiresAt.getTime());
    return true;
  }

  get size(): number {
    return this.seen.size;
  }

  private sweep(now: number): void {
    this.nextSweep = 0;
    for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
  }
}
