/**
 * Turns of the event loop shared by every piece of work that yields through it: ONE waiter resumes per
 * iteration of the loop, so between two slices of that work the loop always polls for I/O (HTTP requests,
 * fsync completions).
 *
 * Why not `setImmediate` in each worker: Node runs every immediate queued before the check phase in that one
 * phase. With 64 cascades running at once (a parent's work item and its in-process continuations), each yielding
 * after 8 ms, their resumptions ran back to back — one phase of 40–60 ms in which no request was read (issue 15:
 * the first refused refresh 39–89 ms after the root's commit, event-loop p99 100–200 ms during a 10k cascade).
 * An immediate queued from inside an immediate callback runs in the next iteration, after the poll phase: the
 * next waiter is resumed from there.
 */
export class SharedTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** Resolves in a later iteration of the event loop than the one it was called in, in call order. */
  next(): Promise<void> {
    return new Promise((resume) => {
      this.waiting.push(resume);
      this.schedule();
    });
  }

  /** Waiters not yet resumed (tests). */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const resume = this.waiting.shift();
      if (this.waiting.length > 0) this.schedule();
      resume?.();
    });
  }
}
