import type { CheckpointStore, EventStore, Position } from '@mission/event-store';

/**
 * A checkpoint store that answers `save` at once and writes only the newest position per consumer,
 * at most every `intervalMs` (all consumers in one group commit).
 *
 * Why: a ProcessManagerRunner saves its trigger checkpoint after every trigger event, and awaits it
 * before the next one. On the embedded store each save is a synchronous commit (fsync) on the event
 * loop, so a cascade of N children costs every runner following `mission` N commits — more than the
 * cascade's own appends, which share commits. Coalescing is safe because a checkpoint only says where
 * a restart resumes: work scheduling is idempotent (a replayed trigger finds its work stream already
 * scheduled), so replaying the events after a lagging checkpoint schedules nothing twice.
 */
export class CoalescedCheckpoints implements CheckpointStore {
  private readonly pending = new Map<string, Position>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly inner: CheckpointStore,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  async load(consumer: string): Promise<Position | undefined> {
    return this.pending.get(consumer) ?? this.inner.load(consumer);
  }

  async save(consumer: string, position: Position): Promise<void> {
    this.pending.set(consumer, position);
    if (this.timer === undefined && !this.closed) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes what is pending now (call at shutdown, after the runners stopped). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** A last flush; afterwards nothing is written any more (a failed last write is only reported). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    await Promise.all(
      batch.map(async ([consumer, position]) => {
        try {
          await this.inner.save(consumer, position);
        } catch (error) {
          // Keep it for the next flush unless a newer position arrived meanwhile.
          if (!this.pending.has(consumer)) void this.save(consumer, position);
          this.onError(error);
        }
      }),
    );
  }
}

/** The same store with another checkpoint store (for the runners only). */
export function withCheckpoints(store: EventStore, checkpoints: CheckpointStore): EventStore {
  return {
    kind: store.kind,
    checkpoints,
    appendToStream: (streamName, events, options) => store.appendToStream(streamName, events, options),
    appendToStreams: (appends) => store.appendToStreams(appends),
    readStream: (streamName, options) => store.readStream(streamName, options),
    streamRevision: (streamName) => store.streamRevision(streamName),
    readAll: (options) => store.readAll(options),
    headPosition: (filter) => store.headPosition(filter),
    subscribeToAll: (options) => store.subscribeToAll(options),
    tombstoneStream: (streamName, options) => store.tombstoneStream(streamName, options),
    expireStreams: (streamNames) => store.expireStreams(streamNames),
    whenDurable: () => store.whenDurable(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
