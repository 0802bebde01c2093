import { decideAndAppend, type AggregateState, type CommandContext } from '@mission/es-kit';
import { WrongExpectedRevisionError, type EventStore } from '@mission/event-store';
import { tokensStreamName, trackedTokenDecider, type TrackedTokenCommand, type TrackedTokenEvent, type TrackedTokensState } from '@mission/ps-domain';
import { KeyedMutex } from '../missions/keyed-mutex.js';

const MAX_CACHED_MISSIONS = 2_000;
const MAX_CONFLICT_RETRIES = 20;

/**
 * The Tracked Auth Tokens of each mission (`pstokens-<s256>`, spec 2.6), decided by the ps-domain
 * `trackedTokenDecider` and hash-chained like every mission log stream (DESIGN 1).
 *
 * Why a cache: a mission may hold thousands of tokens, and folding the whole stream for every
 * issuance or revocation batch would make the work quadratic. Each replica keeps the folded state and
 * the revision it has seen; before every decision it reads only the events after that revision (so
 * other replicas' writes are folded in), and every append still carries the expected revision — a
 * concurrent writer makes it fail and the command is decided again on fresh state. Correctness
 * never depends on the cache; only speed does.
 */
export class TokenLedger {
  private readonly cache = new Map<string, AggregateState<TrackedTokensState>>();
  private readonly mutex = new KeyedMutex();

  constructor(private readonly store: EventStore) {}

  /** The current state (all events committed before the call are included). */
  state(missionS256: string): Promise<TrackedTokensState> {
    return this.mutex.run(missionS256, async () => (await this.catchUp(missionS256)).state);
  }

  /** Decides `command` on the current state and appends its events at the revision it was decided on. */
  execute(missionS256: string, command: TrackedTokenCommand, context: CommandContext): Promise<{ state: TrackedTokensState; newEvents: TrackedTokenEvent[] }> {
    return this.mutex.run(missionS256, async () => {
      const stream = tokensStreamName(missionS256);
      for (let attempt = 1; ; attempt++) {
        const current = await this.catchUp(missionS256);
        try {
          const result = await decideAndAppend(this.store, stream, trackedTokenDecider, current, command, context, { hashChain: true });
          if (result.newEvents.length === 0) return { state: current.state, newEvents: [] };
          // Read back what was appended: the cache keeps the recorded last event for the next hash link.
          const after = await this.catchUp(missionS256);
          return { state: after.state, newEvents: result.newEvents };
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
        }
      }
    });
  }

  private async catchUp(missionS256: string): Promise<AggregateState<TrackedTokensState>> {
    const stream = tokensStreamName(missionS256);
    let current = this.cache.get(missionS256) ?? { state: trackedTokenDecider.initialState, revision: 'no_stream' as const };
    const from = current.revision === 'no_stream' ? 'start' : current.revision + 1n;
    let { state, revision, lastEvent } = current;
    for await (const recorded of this.store.readStream(stream, { fromRevision: from })) {
      state = trackedTokenDecider.evolve(state, recorded as unknown as TrackedTokenEvent);
      revision = recorded.revision;
      lastEvent = recorded;
    }
    current = { state, revision, ...(lastEvent !== undefined ? { lastEvent } : {}) };
    this.cache.delete(missionS256);
    this.cache.set(missionS256, current);
    if (this.cache.size > MAX_CACHED_MISSIONS) this.cache.delete(this.cache.keys().next().value!);
    return current;
  }
}
