import { eventHash, genesisHash, metadataFor, PREV_HASH, type AggregateState, type CommandContext } from '@mission/es-kit';
import { WrongExpectedRevisionError, type EventData, type EventStore, type JsonObject } from '@mission/event-store';
import { evolveTrackedTokensMany, tokensStreamName, trackedTokenDecider, type TrackedTokenCommand, type TrackedTokenEvent, type TrackedTokensState } from '@mission/ps-domain';
import { KeyedMutex } from '../missions/keyed-mutex.js';

const MAX_CACHED_MISSIONS = 2_000;
const MAX_CONFLICT_RETRIES = 20;
/** Commands decided and appended together at most (one append, one transaction). */
const MAX_GROUP = 256;

export interface LedgerResult {
  readonly state: TrackedTokensState;
  readonly newEvents: TrackedTokenEvent[];
}

interface Pending {
  readonly command: TrackedTokenCommand;
  readonly context: CommandContext;
  readonly resolve: (result: LedgerResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The Tracked Auth Tokens of each mission (`pstokens-<s256>`, spec 2.6), decided by the ps-domain
 * `trackedTokenDecider` and hash-chained like every mission log stream (DESIGN 1).
 *
 * Two things make a mission with thousands of tokens cheap, neither of which correctness depends on:
 * - **A per-mission cache** of the folded state and its revision. Before each decision only the events
 *   after that revision are read (so other replicas' writes are folded in); every append still carries
 *   the expected revision, and a concurrent writer makes the group be decided again on fresh state.
 * - **Group commit.** Commands that arrive while an append for the same mission is in flight are
 *   decided one after another over the evolving state and appended together in one transaction (one
 *   durable write instead of one each). A command the decider refuses fails alone; the others commit.
 *   Each event keeps the metadata (correlation, causation, actor) of its own command.
 */
export class TokenLedger {
  private readonly cache = new Map<string, AggregateState<TrackedTokensState>>();
  private readonly mutex = new KeyedMutex();
  private readonly queues = new Map<string, Pending[]>();

  constructor(private readonly store: EventStore) {}

  /** The current state (all events committed before the call are included). */
  state(missionS256: string): Promise<TrackedTokensState> {
    return this.mutex.run(missionS256, async () => (await this.catchUp(missionS256)).state);
  }

  /** Decides `command` on the current state and appends its events at the revision it was decided on. */
  execute(missionS256: string, command: TrackedTokenCommand, context: CommandContext): Promise<LedgerResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(missionS256);
      if (queue !== undefined) {
        queue.push({ command, context, resolve, reject });
        return;
      }
      this.queues.set(missionS256, [{ command, context, resolve, reject }]);
      void this.drain(missionS256);
    });
  }

  private async drain(missionS256: string): Promise<void> {
    const queue = this.queues.get(missionS256)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP);
      try {
        await this.mutex.run(missionS256, () => this.commit(missionS256, group));
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    this.queues.delete(missionS256);
  }

  private async commit(missionS256: string, group: readonly Pending[]): Promise<void> {
    const stream = tokensStreamName(missionS256);
    for (let attempt = 1; ; attempt++) {
      const current = await this.catchUp(missionS256);
      let state = current.state;
      const decided: { pending: Pending; events: TrackedTokenEvent[] }[] = [];
      const refused: { pending: Pending; error: unknown }[] = [];
      for (const pending of group) {
        try {
          const events = trackedTokenDecider.decide(pending.command, state);
          state = evolveTrackedTokensMany(state, events);
          decided.push({ pending, events });
        } catch (error) {
          refused.push({ pending, error });
        }
      }
      const toAppend = decided.flatMap(({ pending, events }) => events.map((event) => ({ event, context: pending.context })));
      try {
        if (toAppend.length > 0) await this.store.appendToStream(stream, chained(stream, current, toAppend), { expectedRevision: current.revision });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < MAX_CONFLICT_RETRIES) continue;
        throw error;
      }
      // Read back what was appended: the cache keeps the recorded last event for the next hash link.
      const after = toAppend.length > 0 ? (await this.catchUp(missionS256)).state : current.state;
      for (const { pending, events } of decided) pending.resolve({ state: after, newEvents: events });
      for (const { pending, error } of refused) pending.reject(error);
      return;
    }
  }

  private async catchUp(missionS256: string): Promise<AggregateState<TrackedTokensState>> {
    const stream = tokensStreamName(missionS256);
    let current = this.cache.get(missionS256) ?? { state: trackedTokenDecider.initialState, revision: 'no_stream' as const };
    const from = current.revision === 'no_stream' ? 'start' : current.revision + 1n;
    let { revision, lastEvent } = current;
    const read: TrackedTokenEvent[] = [];
    for await (const recorded of this.store.readStream(stream, { fromRevision: from })) {
      read.push(recorded as unknown as TrackedTokenEvent);
      revision = recorded.revision;
      lastEvent = recorded;
    }
    current = { state: evolveTrackedTokensMany(current.state, read), revision, ...(lastEvent !== undefined ? { lastEvent } : {}) };
    this.cache.delete(missionS256);
    this.cache.set(missionS256, current);
    if (this.cache.size > MAX_CACHED_MISSIONS) this.cache.delete(this.cache.keys().next().value!);
    return current;
  }
}

/** DESIGN 1 metadata per event (its own command's context) with the `prev_hash` chain continued from `current`. */
function chained(stream: string, current: AggregateState<unknown>, items: readonly { event: TrackedTokenEvent; context: CommandContext }[]): EventData[] {
  let previousHash = current.lastEvent !== undefined ? eventHash(current.lastEvent) : genesisHash(stream);
  let revision = current.revision === 'no_stream' ? 0n : current.revision + 1n;
  return items.map(({ event, context }) => {
    const data = event.data as unknown as JsonObject;
    const metadata: JsonObject = { ...metadataFor(context), [PREV_HASH]: previousHash };
    previousHash = eventHash({ streamName: stream, revision, type: event.type, data, metadata });
    revision += 1n;
    return { type: event.type, data, metadata };
  });
}
