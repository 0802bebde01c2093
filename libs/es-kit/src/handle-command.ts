import { WrongExpectedRevisionError, type AppendResult, type EventData, type EventStore, type JsonObject } from '@mission/event-store';
import type { Decider, DomainEvent } from '@mission/decider';
import { metadataFor, type CommandContext } from './event-metadata.js';
import { eventHash, genesisHash, PREV_HASH, type ChainedEvent } from './hash-chain.js';

export interface HandleCommandOptions {
  /** Lifecycle streams carry a `prev_hash` chain (DESIGN 1). */
  readonly hashChain?: boolean;
  /** Attempts before a concurrency conflict is given up to the caller (default 5). */
  readonly maxAttempts?: number;
}

export interface AggregateState<State> {
  readonly state: State;
  /** Revision of the last event read, or `no_stream`: the expected revision for the next append. */
  readonly revision: bigint | 'no_stream';
  readonly lastEvent?: ChainedEvent;
}

export interface CommandResult<State, Event extends DomainEvent> extends AggregateState<State> {
  readonly newEvents: Event[];
  readonly append?: AppendResult;
}

/** Folds a stream through a decider's `evolve`. */
export async function aggregateStream<Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Pick<Decider<never, Event, State>, 'evolve' | 'initialState'>,
): Promise<AggregateState<State>> {
  let state = decider.initialState;
  let revision: bigint | 'no_stream' = 'no_stream';
  let lastEvent: ChainedEvent | undefined;
  for await (const recorded of store.readStream(streamName)) {
    state = decider.evolve(state, recorded as unknown as Event);
    revision = recorded.revision;
    lastEvent = recorded;
  }
  return { state, revision, ...(lastEvent ? { lastEvent } : {}) };
}

/**
 * Read → decide → append with the revision that was read. A concurrent writer makes the append fail
 * with WrongExpectedRevision; the command is then decided again on fresh state, a bounded number of
 * times, so every rule is checked against the state it is actually committed over.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  options: HandleCommandOptions = {},
): Promise<CommandResult<State, Event>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const current = await aggregateStream(store, streamName, decider);
    try {
      return await decideAndAppend(store, streamName, decider, current, command, context, options);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
    }
  }
}

/**
 * Decide over state the caller already read (with its revision) and append at exactly that revision:
 * for commands whose other checks ran over the same read (e.g. DESIGN 2.4: the child attachment is
 * appended with the parent revision read in spec 4.1 step 4). A concurrent writer makes it throw
 * WrongExpectedRevisionError; the caller reads again and re-runs its checks.
 */
export async function decideAndAppend<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamName: string,
  decider: Decider<Command, Event, State>,
  current: AggregateState<State>,
  command: Command,
  context: CommandContext,
  options: Pick<HandleCommandOptions, 'hashChain'> = {},
): Promise<CommandResult<State, Event>> {
  const newEvents = decider.decide(command, current.state);
  if (newEvents.length === 0) return { ...current, newEvents };
  const eventData = toEventData(streamName, current, newEvents, context, options.hashChain ?? false);
  const append = await store.appendToStream(streamName, eventData, { expectedRevision: current.revision });
  const state = newEvents.reduce(decider.evolve, current.state);
  return { state, revision: append.nextExpectedRevision, newEvents, append };
}

function toEventData<Event extends DomainEvent>(
  streamName: string,
  current: AggregateState<unknown>,
  events: Event[],
  context: CommandContext,
  hashChain: boolean,
): EventData[] {
  const base = metadataFor(context);
  let previousHash = hashChain ? (current.lastEvent ? eventHash(current.lastEvent) : genesisHash(streamName)) : undefined;
  let revision = current.revision === 'no_stream' ? 0n : current.revision + 1n;
  return events.map((event) => {
    const data = event.data as JsonObject;
    const metadata: JsonObject = previousHash === undefined ? { ...base } : { ...base, [PREV_HASH]: previousHash };
    if (previousHash !== undefined) previousHash = eventHash({ streamName, revision, type: event.type, data, metadata });
    revision += 1n;
    return { type: event.type, data, metadata };
  });
}
