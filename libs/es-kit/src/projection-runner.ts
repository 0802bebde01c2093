import { comparePositions, formatPosition, type AllFilter, type EventStore, type Position, type RecordedEvent } from '@mission/event-store';

/**
 * A read model fed from the global order. `apply` must be deterministic and depend only on events,
 * so that `rebuild()` from zero reproduces the same model.
 */
export interface Projection {
  readonly name: string;
  readonly categories: readonly string[];
  /**
   * The event types `apply` acts on, when it ignores the others: the runner then reads only these (the store's type
   * index, ADR 0055), so a projection of a few lifecycle facts does not replay every logged read of the same
   * streams at each start (issue 15 item 6). Undefined: every event of the categories.
   */
  readonly eventTypes?: readonly string[];
  apply(event: RecordedEvent): void | Promise<void>;
  /** Forget everything applied so far (before a rebuild). */
  reset(): void | Promise<void>;
  /**
   * Projections whose model survives a restart persist it here and resume from the stored checkpoint.
   * Without it the model lives in memory and is rebuilt from zero on every start. Delivery after a crash
   * is at-least-once from the checkpoint, so a persisted model must apply events idempotently.
   */
  persist?(): void | Promise<void>;
  /**
   * A projection that stores its position with its model, in the same transaction as the rows it covers (ADR 0086),
   * gives it here; the runner then resumes from it and keeps no checkpoint of its own in the event store, so a model
   * and its position can never disagree (a deleted model file is an empty model at no position: rebuilt from zero).
   * `persist` is still called at each checkpoint to make what was applied durable.
   */
  storedPosition?(): Position | undefined | Promise<Position | undefined>;
}

export interface ProjectionRunnerOptions {
  readonly logger?: { error(obj: object, msg: string): void; info(obj: object, msg: string): void; warn?(obj: object, msg: string): void };
  /** Checkpoint at least every this many events while catching up (default 500). */
  readonly checkpointEvery?: number;
}

/** Drives one projection from a catch-up subscription; checkpointed; rebuildable from zero. */
export class ProjectionRunner {
  private lastProcessed: Position | undefined;
  private running: Promise<void> | undefined;
  private subscription: ReturnType<EventStore['subscribeToAll']> | undefined;
  private failure: unknown;
  private sinceCheckpoint = 0;
  private checkpointTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly projection: Projection,
    private readonly options: ProjectionRunnerOptions = {},
  ) {}

  get name(): string {
    return this.projection.name;
  }

  /** What the projection reads: its categories, narrowed to its event types when it names them. */
  private get filter(): AllFilter {
    const types = this.projection.eventTypes;
    return { streamCategories: this.projection.categories, ...(types ? { eventTypes: types } : {}) };
  }

  get checkpointName(): string {
    return `projection_${this.projection.name}`;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.lastProcessed = await this.resumePosition();
    if (!this.lastProcessed) await this.projection.reset();
    this.follow();
  }

  /** Where the model left off, or undefined to build it from zero. */
  private async resumePosition(): Promise<Position | undefined> {
    if (!this.projection.storedPosition) return this.projection.persist ? await this.store.checkpoints.load(this.checkpointName) : undefined;
    const stored = await this.projection.storedPosition();
    if (!stored) return undefined;
    // A model ahead of the store was built from another store (a replaced or restored DATA_DIR, another cluster):
    // resuming would skip every event up to its position, so it is rebuilt instead.
    const head = await this.store.headPosition();
    if (head === undefined || comparePositions(stored, head) > 0) {
      this.options.logger?.warn?.({ projection: this.projection.name, stored: formatPosition(stored), head: head && formatPosition(head) }, 'projection model is ahead of the event store: rebuilding it');
      return undefined;
    }
    return stored;
  }

  async stop(): Promise<void> {
    clearInterval(this.checkpointTimer);
    await this.subscription?.close();
    await this.running;
    this.running = undefined;
    await this.saveCheckpoint();
  }

  /**
   * Forgets the model and replays everything from the first event. A persisted projection's stored
   * checkpoint is overwritten by the next checkpoint of the replay.
   */
  async rebuild(): Promise<void> {
    await this.stop();
    this.lastProcessed = undefined;
    this.failure = undefined;
    await this.projection.reset();
    this.follow();
  }

  private follow(): void {
    this.subscription = this.store.subscribeToAll({
      ...(this.lastProcessed ? { after: this.lastProcessed } : {}),
      filter: this.filter,
    });
    this.running = this.consume(this.subscription);
    if (this.projection.persist) {
      // Idle projections still checkpoint, so a restart does not replay what was applied long ago.
      this.checkpointTimer = setInterval(() => void this.saveCheckpoint().catch((error: unknown) => (this.failure = error)), 1000);
      this.checkpointTimer.unref();
    }
  }

  /** True when every event that existed at the time of the call has been applied; throws if the projection failed. */
  async isCaughtUp(): Promise<boolean> {
    if (this.failure) throw this.failure;
    const head = await this.store.headPosition(this.filter);
    if (!head) return true;
    return this.lastProcessed !== undefined && comparePositions(this.lastProcessed, head) >= 0;
  }

  /**
   * How many events of the projection's categories exist past what it applied, counted up to `limit` (a
   * projection further behind reports `limit`). Counted by reading, because an EventStoreDB position is a
   * log offset, not an event number; a caught-up projection reads nothing.
   */
  async lagEvents(limit = 10_000): Promise<number> {
    let behind = 0;
    const after = this.lastProcessed;
    for await (const event of this.store.readAll({ ...(after ? { after } : {}), maxCount: limit, filter: this.filter })) {
      void event;
      behind++;
    }
    return behind;
  }

  /** Resolves once caught up with the head as of now (tests, start-up readiness). */
  async waitUntilCaughtUp(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.isCaughtUp())) {
      if (Date.now() > deadline) throw new Error(`projection ${this.projection.name} did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private async consume(subscription: AsyncIterable<RecordedEvent>): Promise<void> {
    const every = this.options.checkpointEvery ?? 500;
    try {
      for await (const event of subscription) {
        await this.projection.apply(event);
        this.lastProcessed = event.position;
        if (++this.sinceCheckpoint >= every) await this.saveCheckpoint();
      }
    } catch (error) {
      // A projection that cannot apply an event stops where it is: skipping would corrupt the model.
      this.failure = error;
      this.options.logger?.error({ projection: this.projection.name, err: error }, 'projection stopped on an event it could not apply');
    }
  }

  private async saveCheckpoint(): Promise<void> {
    const position = this.lastProcessed;
    if (!this.projection.persist || !position || this.sinceCheckpoint === 0) return;
    // The model may already hold later events than `position`; replaying them is the idempotent case.
    this.sinceCheckpoint = 0;
    await this.projection.persist();
    if (!this.projection.storedPosition) await this.store.checkpoints.save(this.checkpointName, position);
  }
}
