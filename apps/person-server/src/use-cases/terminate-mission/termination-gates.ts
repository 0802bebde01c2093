/** The points between the steps of `terminate` (spec 4.2) where a test may hold a request (ADR 0017). */
export type TerminationStep =
  /** The idempotency claim on `psidem-<key>` is written; the mission is not touched yet. */
  | 'claimed'
  /** The termination (or the late request) is committed on `psmission-<s256>`; no result is recorded yet. */
  | 'committed'
  /** The answer is computed (revocation summary included) and about to be recorded on `psidem-<key>`. */
  | 'answering';

interface Hold {
  readonly reached: Promise<void>;
  release(): void;
}

/**
 * Deterministic interleavings for the terminate flow (the project's rule: races are tested by gates
 * between steps, never by timers). In production no step is held and `pass` returns at once. A test
 * calls `hold(step)` — the next request reaching `step` waits there until `release()`; `reached` tells
 * the test it got there.
 */
export class TerminationGates {
  private readonly holds = new Map<TerminationStep, { arrive: () => void; released: Promise<void> }[]>();

  async pass(step: TerminationStep): Promise<void> {
    const hold = this.holds.get(step)?.shift();
    if (hold === undefined) return;
    hold.arrive();
    await hold.released;
  }

  hold(step: TerminationStep): Hold {
    let arrive!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const queue = this.holds.get(step) ?? [];
    queue.push({ arrive, released });
    this.holds.set(step, queue);
    return { reached, release };
  }
}
