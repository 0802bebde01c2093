/** Wakes live subscriptions when a commit lands, with a timer as a backstop. */
export class AppendSignal {
  private waiters = new Set<() => void>();

  notify(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const wake of waiters) wake();
  }

  next(timeoutMs: number, abort: AbortSignal): Promise<void> {
    if (abort.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      abort.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }
}
