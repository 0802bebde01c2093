import type { Decider, DomainEvent } from '@mission/decider';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import type { CommandContext } from './event-metadata.js';
import { decideAndAppend, type AggregateState, type CommandResult, type HandleCommandOptions } from './handle-command.js';

/**
 * Folded aggregate states kept in memory, each caught up with its stream at every read: a `load` reads only the
 * events after the cached revision, so it is exactly as fresh as a full read while a long stream (a grant rotated
 * 100,000 times) is not re-folded on every command. Bounded: the least recently used stream is forgotten first.
 *
 * Safe because states are immutable values (deciders' `evolve` never mutates its input) and the store is the
 * source of truth: a decision is appended at the revision it was made over, so a cache that is behind only costs
 * a retry, never a wrong commit.
 */
export class AggregateCache<Command, Event extends DomainEvent, State> {
  private readonly states = new Map<string, AggregateState<State>>();

  constructor(
    private readonly store: EventStore,
    private readonly decider: Decider<Command, Event, State>,
    private readonly maxStreams = 50_000,
  ) {}

  /** The stream's state and revision, read up to the stream's end now. */
  async load(streamName: string): Promise<AggregateState<State>> {
    const cached = this.states.get(streamName);
    let state = cached?.state ?? this.decider.initialState;
    let revision = cached?.revision ?? 'no_stream';
    let lastEvent = cached?.lastEvent;
    const fromRevision = revision === 'no_stream' ? 'start' : revision + 1n;
    for await (const recorded of this.store.readStream(streamName, { fromRevision })) {
      state = this.decider.evolve(state, recorded as unknown as Event);
      revision = recorded.revision;
      lastEvent = recorded;
    }
    const current: AggregateState<State> = { state, revision, ...(lastEvent ? { lastEvent } : {}) };
    if (revision !== 'no_stream') this.remember(streamName, current);
    return current;
  }

  /**
   * `handleCommand` over the cached state: load (catch up) → decide → append at that revision; on a concurrent
   * writer, load again and decide again, a bounded number of times. The state after a committed append is kept
   * (write-through): it is the fold of the decided events, which is what reading them back would give, because
   * events are JSON values and `evolve` reads only their type and data (a property test holds this). The next `load`
   * then reads from after the append, and finds only what others wrote since.
   */
  async handle(streamName: string, command: Command, context: CommandContext, options: HandleCommandOptions = {}): Promise<CommandResult<State, Event>> {
    const maxAttempts = options.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      const current = await this.load(streamName);
      try {
        const result = await decideAndAppend(this.store, streamName, this.decider, current, command, context, options);
        if (result.append !== undefined && result.revision !== 'no_stream') {
          this.remember(streamName, { state: result.state, revision: result.revision, ...(result.lastEvent ? { lastEvent: result.lastEvent } : {}) });
        }
        return result;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
      }
    }
  }

  get size(): number {
    return this.states.size;
  }

  private remember(streamName: string, current: AggregateState<State>): void {
    // Never back: a write-through answered late must not replace a newer state a load or a later append put here.
    const known = this.states.get(streamName)?.revision;
    if (known !== undefined && known !== 'no_stream' && current.revision !== 'no_stream' && known > current.revision) return;
    this.states.delete(streamName);
    this.states.set(streamName, current);
    if (this.states.size > this.maxStreams) this.states.delete(this.states.keys().next().value!);
  }
}
