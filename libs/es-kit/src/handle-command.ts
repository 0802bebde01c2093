import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type AppendResult, type EventData, type EventStore, type JsonObject } from '@mission/event-store';
import type { Decider, DomainEvent } from '@mission/decider';
import { metadataFor, type CommandContext } from './event-metadata.js';
import { hashOfLastEvent, rememberAppendedHead } from './chain-head-cache.js';
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
  /** The event read last (a RecordedEvent, with its `id`, when read from the store). */
  readonly lastEvent?: ChainedEvent & { readonly id?: string };
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
  const prepared = prepareAppend(streamName, decider, current, command, context, options);
  if (prepared.events.length === 0) return { ...current, newEvents: prepared.newEvents };
  const append = await store.appendToStream(streamName, prepared.events, { expectedRevision: prepared.expectedRevision });
  return completeAppend(prepared, decider, append);
}

/** A decision over state already read, turned into the events to append (nothing written yet). */
export interface PreparedAppend<State, Event extends DomainEvent> {
  readonly streamName: string;
  readonly current: AggregateState<State>;
  readonly newEvents: Event[];
  /** With metadata (and `prev_hash` on a hash-chained stream) and ids; empty when nothing was decided. */
  readonly events: EventData[];
  /** The revision the decision was made over: the append must be made at exactly this revision. */
  readonly expectedRevision: bigint | 'no_stream';
  readonly hashChain: boolean;
}

/**
 * The first half of `decideAndAppend`, for callers that append many decisions together
 * (`EventStore.appendToStreams`): decide over `current` and build the events. Append them with
 * `expectedRevision`, then call `completeAppend` with the result.
 */
export function prepareAppend<Command, Event extends DomainEvent, State>(
  streamName: string,
  decider: Decider<Command, Event, State>,
  current: AggregateState<State>,
  command: Command,
  context: CommandContext,
  options: Pick<HandleCommandOptions, 'hashChain'> = {},
): PreparedAppend<State, Event> {
  const newEvents = decider.decide(command, current.state);
  const hashChain = options.hashChain ?? false;
  const events = newEvents.length === 0 ? [] : toEventData(streamName, current, newEvents, context, hashChain);
  return { streamName, current, newEvents, events, expectedRevision: current.revision, hashChain };
}

/** The second half: the state after a committed append of `prepared.events`. */
export function completeAppend<Command, Event extends DomainEvent, State>(
  prepared: PreparedAppend<State, Event>,
  decider: Decider<Command, Event, State>,
  append: AppendResult,
): CommandResult<State, Event> {
  const last = prepared.events[prepared.events.length - 1];
  // The appended event as a read would give it (without `created` and `position`, which nothing chains or folds).
  const lastEvent = last === undefined ? undefined : { id: last.id, streamName: prepared.streamName, revision: append.nextExpectedRevision, type: last.type, data: last.data, metadata: last.metadata ?? {} };
  if (prepared.hashChain && lastEvent?.id !== undefined) {
    rememberAppendedHead(
      prepared.streamName,
      lastEvent.id,
      lastEvent,
      // A stream's first event (its creation) is nearly always followed by more: hash it now (chain-head-cache.ts).
      { hashNow: prepared.current.revision === 'no_stream' },
    );
  }
  const state = prepared.newEvents.reduce(decider.evolve, prepared.current.state);
  return { state, revision: append.nextExpectedRevision, newEvents: prepared.newEvents, append, ...(lastEvent ? { lastEvent } : {}) };
}

function toEventData<Event extends DomainEvent>(
  streamName: string,
  current: AggregateState<unknown>,
  events: Event[],
  context: CommandContext,
  hashChain: boolean,
): EventData[] {
  const base = metadataFor(context);
  let previousHash = hashChain ? (current.lastEvent ? hashOfLastEvent(current.lastEvent) : genesisHash(streamName)) : undefined;
  let revision = current.revision === 'no_stream' ? 0n : current.revision + 1n;
  return events.map((event, index) => {
    const data = event.data as JsonObject;
    const metadata: JsonObject = previousHash === undefined ? { ...base } : { ...base, [PREV_HASH]: previousHash };
    // The next event's link; the last event's own hash is left to the chain-head cache (computed when needed).
    if (previousHash !== undefined && index < events.length - 1) previousHash = eventHash({ streamName, revision, type: event.type, data, metadata });
    revision += 1n;
    return { id: randomUUID(), type: event.type, data, metadata };
  });
}
