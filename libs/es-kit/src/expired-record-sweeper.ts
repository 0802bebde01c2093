import type { EventStore, Position, RecordedEvent } from '@mission/event-store';

/**
 * Default grace: far above any clock difference between replicas (NTP keeps them within a second) and any time
 * between a request's time check and its record append; the records cost only five more minutes of storage.
 */
export const DEFAULT_EXPIRED_RECORD_GRACE_MS = 5 * 60_000;

/** Records that protect something only until a time they carry: replay records (ADR 0057). */
export interface ExpiringRecords {
  /** Lower-case letters, digits and `_`; names the checkpoint `sweep_<name>`. */
  readonly name: string;
  readonly categories: readonly string[];
  readonly eventTypes: readonly string[];
  /**
   * The first instant at which what the record protects is refused on its own (e.g. a proof's `iat` left
   * the acceptance window); undefined when the event does not say (such a record is never expired).
   */
  expiresAt(event: RecordedEvent): Date | undefined;
}

export interface ExpiredRecordSweeperOptions {
  readonly clock: () => Date;
  /**
   * Kept this much longer than `expiresAt`: covers clock differences between replicas and the time between a
   * request's time check and its record append, during which a replay must still find the record.
   */
  readonly graceMs: number;
  /** How often to look (ms); the sweep itself runs until nothing more has expired. */
  readonly intervalMs?: number;
  /** Records read and expired per store call (at most the store's MAX_STREAMS_PER_APPEND). */
  readonly batchSize?: number;
  readonly logger?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/**
 * Expires records once their protection has ended, oldest first, from a checkpoint: reads the records' event
 * types in position order and hands the expired ones' streams to `expireStreams`, stopping at the first record
 * that has not expired yet (records are written at about the time they start protecting, so expiry times
 * roughly follow position; a later record that expires earlier waits for the one before it, never the other
 * way round). Idempotent: expiring an absent stream does nothing, so a crash before the checkpoint only
 * repeats work.
 */
export class ExpiredRecordSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly records: ExpiringRecords,
    private readonly options: ExpiredRecordSweeperOptions,
  ) {}

  get checkpointName(): string {
    return `sweep_${this.records.name}`;
  }

  start(): void {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), this.options.intervalMs ?? 10_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One sweep (never two at once); resolves with the number of records expired. */
  sweep(): Promise<number> {
    this.running ??= this.sweepUntilCurrent().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepUntilCurrent(): Promise<number> {
    const batchSize = this.options.batchSize ?? 1000;
    let expired = 0;
    try {
      for (;;) {
        const now = this.options.clock().getTime();
        const after = await this.store.checkpoints.load(this.checkpointName);
        const streams: string[] = [];
        let last: Position | undefined;
        let reachedUnexpired = false;
        let read = 0;
        for await (const event of this.store.readAll({ ...(after ? { after } : {}), maxCount: batchSize, filter: { streamCategories: this.records.categories, eventTypes: this.records.eventTypes } })) {
          read++;
          const expiresAt = this.records.expiresAt(event);
          if (expiresAt !== undefined && expiresAt.getTime() + this.options.graceMs > now) {
            reachedUnexpired = true;
            break;
          }
          if (expiresAt !== undefined) streams.push(event.streamName);
          last = event.position;
        }
        if (streams.length > 0) await this.store.expireStreams(streams);
        if (last !== undefined) await this.store.checkpoints.save(this.checkpointName, last);
        expired += streams.length;
        if (reachedUnexpired || read < batchSize) break;
      }
    } catch (error) {
      this.options.logger?.error({ sweeper: this.records.name, err: error }, 'sweep of expired records failed; retried at the next interval');
      throw error;
    }
    if (expired > 0) this.options.logger?.info({ sweeper: this.records.name, expired }, 'expired records removed');
    return expired;
  }
}
