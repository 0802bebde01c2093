/**
 * A small least-recently-used cache with a fixed number of entries (a Map keeps insertion order; a hit moves the
 * entry to the end, an insert beyond the limit drops the oldest). For values that are expensive to derive and keyed
 * by what they are derived from — e.g. an imported public key keyed by its JWK — so memory stays bounded whatever
 * callers send. Shared by both services' verification code (ADR 0062), hence here, in the lowest shared library.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  get capacity(): number {
    return this.maxEntries;
  }
}
