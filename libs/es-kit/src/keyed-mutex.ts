/**
 * Serializes async work per key inside one process: one writer per stream (e.g. Child Mission creations
 * against one parent's stream), so concurrent commands queue instead of burning their optimistic-concurrency
 * retries on each other. Correctness across processes still comes from the expected revision of every
 * append; this only removes contention within one replica. Keys are forgotten when their queue drains.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with work queued or running (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
