/**
 * Streams written (or tombstoned, or expired) by commits that are not yet on disk, each with the number of the
 * newest such commit (ADR 0067): a read of one of them waits for that commit's fsync, a read of any other stream
 * does not wait at all.
 */
export class PendingStreams {
  private readonly newest = new Map<string, number>();

  /** Records that commit number `commit` touched `streams`; returns what `settled` needs once it is on disk. */
  committed(commit: number, streams: Iterable<string>): { readonly commit: number; readonly streams: ReadonlySet<string> } {
    const touched = new Set(streams);
    for (const stream of touched) this.newest.set(stream, commit);
    return { commit, streams: touched };
  }

  /** The commit is on disk; a later commit to the same stream keeps it pending until that one is too. */
  settled({ commit, streams }: { readonly commit: number; readonly streams: ReadonlySet<string> }): void {
    for (const stream of streams) if (this.newest.get(stream) === commit) this.newest.delete(stream);
  }

  /** The newest commit not yet on disk that touched the stream, if any. */
  commitOf(stream: string): number | undefined {
    return this.newest.get(stream);
  }
}
