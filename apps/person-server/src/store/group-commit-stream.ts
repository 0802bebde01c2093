import type { Decider, DomainEvent } from '@mission/decider';
import { WrongExpectedRevisionError, type EventData, type EventStore } from '@mission/event-store';
import { KeyedMutex, prepareAppend, type AggregateState, type CommandContext } from '@mission/es-kit';

const MAX_CONFLICT_RETRIES = 50;
/** Commands decided and appended together at most (one append, one transaction). */
const MAX_GROUP = 256;

export interface GroupCommitOptions<Event extends DomainEvent, State> {
  /** Lifecycle and log streams carry the `prev_hash` chain (DESIGN 1). */
  readonly hashChain: boolean;
  /** Folds several events with one copy of large collections; default: `evolve` one by one. */
  readonly evolveMany?: (state: State, events: readonly Event[]) => State;
  /** Aggregates kept in memory (least recently used are dropped). */
  readonly maxCached?: number;
  /** Persisted folds read before the stream on a cache miss (ADR 0059); none: every miss folds from the start. */
  readonly snapshots?: StateSnapshots<State>;
}

/**
 * Persisted snapshots of a stream's fold (ADR 0059). Never trusted over the stream: `load` returns only a snapshot
 * bound to an event the stream really holds at the snapshot's revision, and the events after it are still read and
 * folded; anything unverifiable is `undefined` (the stream is then folded from its start).
 */
export interface StateSnapshots<State> {
  load(key: string): Promise<AggregateState<State> | undefined>;
  /** Records the fold at `current.revision`; a failure is the snapshot store's to log, never the decision's. */
  save(key: string, current: AggregateState<State>): Promise<void>;
  /** A new snapshot once this many events were folded past the last one. */
  readonly every: number;
}

interface Cached<State> {
  readonly current: AggregateState<State>;
  /** Revision of the newest snapshot known to hold this fold (-1: none). */
  readonly snapshotAt: bigint;
}

export interface GroupCommitResult<Event, State> {
  /** The state right after this command's events (or the current state when it decided nothing). */
  readonly state: State;
  readonly newEvents: Event[];
}

interface Pending<Command, Event, State> {
  readonly command: Command;
  readonly context: CommandContext;
  readonly resolve: (result: GroupCommitResult<Event, State>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Read → decide → append for one kind of stream, with two speed-ups that correctness never depends on:
 * - **A per-stream cache** of the folded state and its revision. Before each decision only the events
 *   after that revision are read (so other replicas' and other writers' events are folded in); every
 *   append still carries the expected revision, and a conflict makes the whole group be decided again
 *   on fresh state (DESIGN 1: consistency from the write side). The group's own events are folded in
 *   as decided (`evolve`), never read back: a committed append at the expected revision IS that fold.
 * - **Group commit.** Commands that arrive while an append to the same stream is in flight are decided
 *   one after another over the evolving state and appended together in one transaction — one durable
 *   write instead of one each. A command the decider refuses fails alone; each event keeps the metadata
 *   (correlation, causation, actor, time) of its own command.
 */
export class GroupCommitStream<Command, Event extends DomainEvent, State> {
  private readonly cache = new Map<string, Cached<State>>();
  private readonly saving = new Set<Promise<void>>();
  private readonly mutex = new KeyedMutex();
  private readonly queues = new Map<string, Pending<Command, Event, State>[]>();
  private readonly evolveMany: (state: State, events: readonly Event[]) => State;

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<Command, Event, State>,
    private readonly streamName: (key: string) => string,
    private readonly options: GroupCommitOptions<Event, State>,
  ) {
    this.evolveMany = options.evolveMany ?? ((state, events) => events.reduce(decider.evolve, state));
  }

  /** The current state: every event committed before the call is included. */
  state(key: string): Promise<State> {
    return this.mutex.run(key, async () => (await this.catchUp(key)).current.state);
  }

  /** Decides `command` on the current state and appends its events at the revision it was decided on. */
  execute(key: string, command: Command, context: CommandContext): Promise<GroupCommitResult<Event, State>> {
    // Each command keeps its own context (and request trace, ADR 0050) in the queue: the group is appended by
    // whichever caller started the drain, and every event still carries the trace of the request that asked for it.
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue !== undefined) {
        queue.push({ command, context, resolve, reject });
        return;
      }
      this.queues.set(key, [{ command, context, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    const queue = this.queues.get(key)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP);
      try {
        await this.mutex.run(key, () => this.commit(key, group));
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    this.queues.delete(key);
  }

  private async commit(key: string, group: readonly Pending<Command, Event, State>[]): Promise<void> {
    const stream = this.streamName(key);
    for (let attempt = 1; ; attempt++) {
      const caughtUp = await this.catchUp(key);
      const current = caughtUp.current;
      // Each command is decided (and its events built, hash-chained, with its own metadata) over the state the
      // ones before it leave; the group is then appended at the revision it was all decided on.
      let head: AggregateState<State> = current;
      const decided: { pending: Pending<Command, Event, State>; events: Event[]; state: State }[] = [];
      const refused: { pending: Pending<Command, Event, State>; error: unknown }[] = [];
      const toAppend: EventData[] = [];
      for (const pending of group) {
        let prepared;
        try {
          prepared = prepareAppend(stream, this.decider, head, pending.command, pending.context, { hashChain: this.options.hashChain });
        } catch (error) {
          refused.push({ pending, error });
          continue;
        }
        const state = this.evolveMany(head.state, prepared.newEvents);
        decided.push({ pending, events: prepared.newEvents, state });
        head = advanced(stream, head, state, prepared.events);
        toAppend.push(...prepared.events);
      }
      if (toAppend.length > 0) {
        try {
          await this.store.appendToStream(stream, toAppend, { expectedRevision: current.revision });
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError && attempt < MAX_CONFLICT_RETRIES) continue;
          throw error;
        }
        // The append at `current.revision` succeeded, so the stream is now exactly `head`: the state the decider's
        // `evolve` gave and the events as built (the store keeps their JSON unchanged, so the next hash link over
        // `head.lastEvent` is the one over the recorded event). Nothing to read back.
        this.remember(key, { current: head, snapshotAt: this.snapshotIfDue(key, head, caughtUp.snapshotAt) });
      }
      for (const { pending, events, state } of decided) pending.resolve({ state, newEvents: events });
      for (const { pending, error } of refused) pending.reject(error);
      return;
    }
  }

  /** Snapshots still being written (tests and shutdown wait for them; decisions never do). */
  async snapshotsWritten(): Promise<void> {
    while (this.saving.size > 0) await Promise.allSettled([...this.saving]);
  }

  /** The cached fold with the events after its revision folded in (the cache then holds it). */
  private async catchUp(key: string): Promise<Cached<State>> {
    const stream = this.streamName(key);
    const cached = this.cache.get(key) ?? (await this.fromSnapshot(key));
    let current = cached.current;
    const from = current.revision === 'no_stream' ? 'start' : current.revision + 1n;
    let { revision, lastEvent } = current;
    const read: Event[] = [];
    for await (const recorded of this.store.readStream(stream, { fromRevision: from })) {
      read.push(recorded as unknown as Event);
      revision = recorded.revision;
      lastEvent = recorded;
    }
    if (read.length > 0 || !this.cache.has(key)) {
      current = { state: this.evolveMany(current.state, read), revision, ...(lastEvent !== undefined ? { lastEvent } : {}) };
    }
    const caughtUp = { current, snapshotAt: this.snapshotIfDue(key, current, cached.snapshotAt) };
    this.remember(key, caughtUp);
    return caughtUp;
  }

  /** A cache miss starts from the newest verified snapshot, else from the stream's start. */
  private async fromSnapshot(key: string): Promise<Cached<State>> {
    const snapshot = await this.options.snapshots?.load(key);
    if (snapshot !== undefined && snapshot.revision !== 'no_stream') return { current: snapshot, snapshotAt: snapshot.revision };
    return { current: { state: this.decider.initialState, revision: 'no_stream' }, snapshotAt: -1n };
  }

  /** Writes a snapshot in the background once `every` events were folded past the last one; returns its revision. */
  private snapshotIfDue(key: string, current: AggregateState<State>, snapshotAt: bigint): bigint {
    const snapshots = this.options.snapshots;
    if (snapshots === undefined || current.revision === 'no_stream' || current.revision - snapshotAt < BigInt(snapshots.every)) return snapshotAt;
    // A failed write only means the next miss starts from an older snapshot (the store logs it).
    const saving = snapshots.save(key, current).catch(() => undefined).finally(() => this.saving.delete(saving));
    this.saving.add(saving);
    return current.revision;
  }

  private remember(key: string, cached: Cached<State>): void {
    this.cache.delete(key);
    this.cache.set(key, cached);
    if (this.cache.size > (this.options.maxCached ?? 2_000)) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** The aggregate as it will be once `events` (built over `head`) are appended: the next command chains onto them. */
function advanced<State>(stream: string, head: AggregateState<State>, state: State, events: readonly EventData[]): AggregateState<State> {
  const last = events[events.length - 1];
  if (last === undefined) return { ...head, state };
  const revision = (head.revision === 'no_stream' ? -1n : head.revision) + BigInt(events.length);
  return { state, revision, lastEvent: { streamName: stream, revision, type: last.type, data: last.data, metadata: last.metadata ?? {} } };
}
