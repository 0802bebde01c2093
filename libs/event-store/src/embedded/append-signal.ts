/** What a sleeping subscription wants to be woken for: undefined means every commit. */
export type WantsRow<Row> = ((row: Row) => boolean) | undefined;

interface Waiter<Row> {
  readonly wake: () => void;
  readonly wants: WantsRow<Row>;
}

/**
 * Wakes live subscriptions when a commit lands, with a timer as a backstop. A filtered subscription is woken only by a
 * commit with a row it wants: before, every commit woke every subscription (a dozen in the issuer), each of which
 * scanned the new rows, found nothing, and armed a new timer and abort listener — about 2–3 % of the issuer's CPU
 * under replay-record load, where no process manager wants any of the rows.
 */
export class AppendSignal<Row = unknown> {
  private waiters = new Set<Waiter<Row>>();

  /** Wakes the waiters that want one of `rows`; all of them when `rows` is undefined (close). */
  notify(rows?: readonly Row[]): void {
    if (this.waiters.size === 0) return;
    for (const waiter of this.waiters) {
      if (rows === undefined || waiter.wants === undefined || rows.some(waiter.wants)) waiter.wake();
    }
  }

  next(timeoutMs: number, abort: AbortSignal, wants?: WantsRow<Row>): Promise<void> {
    if (abort.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter<Row> = {
        wants,
        wake: () => {
          clearTimeout(timer);
          abort.removeEventListener('abort', waiter.wake);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      abort.addEventListener('abort', waiter.wake, { once: true });
      this.waiters.add(waiter);
    });
  }
}
