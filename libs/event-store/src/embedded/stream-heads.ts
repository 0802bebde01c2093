/** A stream's row in the `streams` table, or `null`: the stream does not exist. */
export type StreamHead = { readonly revision: bigint; readonly tombstone: boolean } | null;

/** Streams whose head is remembered (a name and two small values each: about a megabyte at most). */
export const STREAM_HEADS_CAPACITY = 8_192;

/**
 * The committed head of streams that were read recently, so that a read which starts past a stream's end — an
 * aggregate cache catching up a grant or a mission that nothing wrote since (issue 15: three such reads per
 * refresh, one per introspection) — costs no SQL at all.
 *
 * Invariant: an entry equals the stream's row in the committed database. It holds because this store is the only
 * writer of its file (exclusive lock) and runs on one thread: an entry is learnt from a read made outside any write
 * transaction (`learn`), and every commit updates the entries of the streams it wrote, synchronously, right after
 * COMMIT returned (`committed`) — before any other code runs. A rolled-back write never reaches this cache.
 * Tombstoned and expired streams are forgotten (read again from SQLite once). Streams that are only written
 * (replay records) never take a place here: a commit updates entries, it does not add them; nor do streams read
 * while they do not exist (the store learns only heads it found).
 */
export class StreamHeads {
  private readonly heads = new Map<string, StreamHead>();

  constructor(private readonly capacity = STREAM_HEADS_CAPACITY) {}

  /** The committed head, or `undefined` when it is not known here (read it from SQLite, then `learn` it). */
  get(streamName: string): StreamHead | undefined {
    return this.heads.get(streamName);
  }

  /** A head just read from the committed database, outside any write transaction. */
  learn(streamName: string, head: StreamHead): void {
    this.heads.delete(streamName);
    this.heads.set(streamName, head);
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value!);
  }

  /** A commit wrote these revisions (the newest per stream) and removed these streams; called right after COMMIT. */
  committed(written: Iterable<{ readonly streamName: string; readonly revision: bigint }>, removed: Iterable<string>): void {
    for (const { streamName, revision } of written) {
      if (this.heads.has(streamName)) this.heads.set(streamName, { revision, tombstone: false });
    }
    for (const streamName of removed) this.heads.delete(streamName);
  }

  get size(): number {
    return this.heads.size;
  }
}
