/**
 * Serializes work per key inside one replica (e.g. concurrent commands on one `psmission-<s256>`
 * stream), so they do not burn their optimistic-concurrency retries on each other. Correctness across
 * replicas still comes from the expected revision of every append (DESIGN 1); this only cuts contention.
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
}
