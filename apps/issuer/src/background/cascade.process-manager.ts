import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '@mission/event-store';
import {
  aggregateStream, completeAppend, handleCommand, prepareAppend, type CommandContext, type PreparedAppend, type ProcessManager, type RequestTrace, type ScheduledWork,
} from '@mission/es-kit';
import {
  isTerminalMissionState,
  missionDecider,
  missionExists,
  MissionNotFoundError,
  missionStreamName,
  terminalEffectiveAt,
  terminalSince,
  type CascadeMission,
  type MissionEvent,
  type MissionLifecycleState,
  type MissionState,
  type TerminalMissionState,
} from '@mission/issuer-domain';
import { SharedTurns } from './shared-turns.js';
import { terminalTransition } from './terminal-transition.js';

export const CASCADE_ACTOR = { id: 'issuer:cascade', role: 'system' } as const;
export const DEFAULT_CASCADE_PARALLELISM = 128;
/** Children read and decided between two turns of the event loop (fewer when they are large, see YIELD_AFTER_MS). */
const YIELD_EVERY = 16;
/** A turn is given after this long even within YIELD_EVERY children: a parent with 99 children takes ≈ 2.5 ms to fold. */
const YIELD_AFTER_MS = 8;
/** Cascaded children whose open children are remembered for their own work item (see OpenChildrenMemo). */
const MEMO_CAPACITY = 4_096;
/** Children cascading their own children at once in this process (see continueWith). */
const MAX_CONTINUATIONS = 64;

interface CascadeIds {
  readonly correlationId: string;
  readonly causationId: string;
  /** The request that ended the root (ADR 0050), carried to every generation, continuations included. */
  readonly trace: RequestTrace | undefined;
}

interface RememberedChildren {
  readonly revision: bigint;
  readonly state: MissionLifecycleState;
  /** When its terminal state took effect (decision 0020). */
  readonly terminalAt: Date | undefined;
  readonly open: readonly string[];
}

/** A terminal parent whose open children are cascaded. */
interface TerminalParent {
  readonly id: string;
  readonly state: TerminalMissionState;
  /** When its terminal state took effect: the cascade of its children took effect then (decision 0020). */
  readonly terminalAt: Date;
}

export interface MissionCascadeOptions {
  /** Children cascaded at once by one work item: read, decided, then appended in one `appendToStreams` (default 128). */
  readonly parallelism?: number;
  readonly logger?: { debug(obj: object, msg: string): void };
  /** Overrides of the retry policy (tests). */
  readonly retry?: ProcessManager['retry'];
  /** Cascade the next generation at once in this process (default true; see continueWith). */
  readonly continueInProcess?: boolean;
  /** Test hook: awaited before the children of `parentMissionId` are cascaded, to stage interleavings. Never set in production. */
  readonly beforeCascade?: (parentMissionId: string) => Promise<void>;
}

/**
 * Spec 3.2 immediate cascade (DESIGN 2.4). A terminal transition of a mission that still has
 * non-terminal children (`open_children > 0`) schedules one work item, keyed by the mission id, that
 * records `MissionCascaded` on each of them. Transitivity and generation order come from the same
 * rule: a cascaded child that has open children of its own carries `open_children` in its
 * `MissionCascaded`, which schedules the next generation's work item — so a grandchild is never
 * cascaded before its parent's `MissionCascaded` is committed. This process also starts on that next
 * generation at once (continueWith); the work item then finds nothing left or finishes it.
 *
 * Every attached child is reached whatever its own stream holds (spec 4.1 rule 1, decision 0021): a child
 * whose creation is still in flight (or crashed after the attachment) has no mission on its stream yet,
 * and gets `MissionCascadedBeforeCreation`, which makes its `CreateMission` fail — so a creation and a cascade
 * agree in every interleaving (they meet on the child's stream, each at the revision it read). What is
 * recorded is what happened first (decision 0020): `cascaded`, or `expired` when the child's own
 * `expires_at` came no later than the parent's terminal state took effect.
 *
 * Idempotent: `CascadeMission` on a child that is already terminal (or already marked) decides nothing, so a
 * retried or re-run work item only fills in what is missing. One read of the parent's
 * stream per work item. Children go in batches of `parallelism`: each child's stream is read and the
 * `CascadeMission` command decided over it (with the hash chain and full metadata, as handleCommand does),
 * then the whole batch is appended by one `appendToStreams` — one transaction on the embedded store —
 * each child at exactly the revision read. A child written concurrently (WrongExpectedRevision) is
 * redone alone through handleCommand (read, decide, append, retried). A crash mid-work-item leaves
 * some children cascaded; the retried work item decides nothing for them (ADR 0010).
 */
export function missionCascadeManager(store: EventStore, clock: () => Date, options: MissionCascadeOptions = {}): ProcessManager {
  const parallelism = options.parallelism ?? DEFAULT_CASCADE_PARALLELISM;
  if (!Number.isSafeInteger(parallelism) || parallelism < 1) throw new RangeError(`parallelism must be a positive integer, got ${parallelism}`);
  const memo = new OpenChildrenMemo(MEMO_CAPACITY);
  /** Children whose own children this process is cascading now, without waiting for their work item. */
  const continuations = new Map<string, Promise<void>>();
  const turns = new SharedTurns();
  const beforeCreation = (parentId: string, childId: string): void =>
    // Attached, but the child's own stream holds no mission (its creation is in flight or crashed after
    // the attachment): it is marked cascaded, and its creation will be refused (decision 0021).
    options.logger?.debug({ parent_mission_id: parentId, child_mission_id: childId }, 'cascade: attached child not created yet, cascaded before creation');

  /** Records the cascade on each of `open` (children of the terminal parent), in batches of `parallelism`. */
  async function cascadeChildren(parent: TerminalParent, open: readonly string[], ids: CascadeIds, signal?: AbortSignal): Promise<void> {
    await options.beforeCascade?.(parent.id);
    for (let start = 0; start < open.length; start += parallelism) {
      if (signal?.aborted === true) throw signal.reason ?? new Error('aborted');
      const now = clock();
      const commandFor = (missionId: string, at: Date): CascadeMission => ({
        type: 'CascadeMission', actor: CASCADE_ACTOR, missionId, parentMissionId: parent.id, parentState: parent.state, parentTerminalAt: parent.terminalAt, now: at,
      });
      const context: CommandContext = { ...ids, actor: CASCADE_ACTOR, now };
      const batch: Array<PreparedAppend<MissionState, MissionEvent>> = [];
      const batchIds: string[] = [];
      let sinceTurn = 0;
      let turnAt = performance.now();
      for (const childId of open.slice(start, start + parallelism)) {
        // Reads resolve as microtasks: without a turn of the loop now and then, all running work items'
        // batches would run back to back and keep HTTP requests waiting (event-loop delay). The turns are
        // shared: one work item resumes per iteration of the loop (shared-turns.ts).
        if (sinceTurn >= YIELD_EVERY || (sinceTurn > 0 && performance.now() - turnAt >= YIELD_AFTER_MS)) {
          await turns.next();
          sinceTurn = 0;
          turnAt = performance.now();
        }
        sinceTurn += 1;
        const stream = missionStreamName(childId);
        const current = await aggregateStream(store, stream, missionDecider);
        if (!missionExists(current.state) && current.state.cascadedBeforeCreation === undefined) beforeCreation(parent.id, childId);
        const prepared = prepareAppend(stream, missionDecider, current, commandFor(childId, now), context, { hashChain: true });
        if (prepared.events.length > 0) {
          batch.push(prepared);
          batchIds.push(childId);
        }
      }
      if (batch.length === 0) continue;
      const outcomes = await store.appendToStreams(batch.map((prepared) => ({ streamName: prepared.streamName, events: prepared.events, expectedRevision: prepared.expectedRevision })));
      for (const [index, outcome] of outcomes.entries()) {
        const prepared = batch[index]!;
        if (outcome.ok) {
          const after = completeAppend(prepared, missionDecider, outcome.result);
          const remembered = memo.remember(prepared.streamName, after);
          // The grandchildren's MissionCascaded are caused by this child's, as they would be through its work item.
          const cascadedEventId = prepared.events[prepared.events.length - 1]?.id;
          if (remembered !== undefined && missionExists(after.state) && cascadedEventId !== undefined) {
            continueWith(after.state.missionId, remembered, { correlationId: ids.correlationId, causationId: cascadedEventId, trace: ids.trace });
          }
          continue;
        }
        if (!(outcome.error instanceof WrongExpectedRevisionError)) throw outcome.error;
        // Written meanwhile (its own revocation, or its creation after this read): decided again on a fresh read, alone.
        const retryAt = clock();
        await handleCommand(store, prepared.streamName, missionDecider, commandFor(batchIds[index]!, retryAt), { ...context, now: retryAt }, { hashChain: true, maxAttempts: 10 });
      }
    }
  }

  /**
   * The next generation at once: a child just cascaded with open children of its own has its children
   * cascaded here, without waiting for its work item to be scheduled, claimed and started (several
   * commits and wake-ups per generation, each behind whatever else the event loop is doing). Only an
   * optimization: that work item is still scheduled durably by the child's MissionCascaded; it waits for
   * this continuation, then finds nothing left (memo) or does what is missing — after a failure here or
   * a crash. Bounded; beyond the bound the work item does it.
   */
  function continueWith(childId: string, remembered: RememberedChildren, ids: CascadeIds): void {
    if (options.continueInProcess === false || continuations.size >= MAX_CONTINUATIONS || continuations.has(childId) || !isTerminalMissionState(remembered.state)) return;
    if (remembered.terminalAt === undefined) return;
    const running = cascadeChildren({ id: childId, state: remembered.state, terminalAt: remembered.terminalAt }, remembered.open, ids)
      .then(() => memo.settled(missionStreamName(childId), remembered))
      .catch((error: unknown) => options.logger?.debug({ mission_id: childId, err: error }, 'cascade: continuation failed; the work item of the mission does it'))
      .finally(() => continuations.delete(childId));
    continuations.set(childId, running);
  }

  return {
    name: 'mission_cascade',
    triggers: ['mission'],
    plan: (event: RecordedEvent): ScheduledWork[] => {
      const transition = terminalTransition(event);
      if (!transition || transition.openChildren === 0) return [];
      const correlation = event.metadata['correlation_id'];
      return [
        {
          key: transition.missionId,
          dueAt: transition.occurredAt,
          payload: {
            mission_id: transition.missionId,
            trigger_event_id: event.id,
            ...(typeof correlation === 'string' ? { correlation_id: correlation } : {}),
          },
        },
      ];
    },
    perform: async (work, signal) => {
      const parentId = String(work.payload['mission_id']);
      // This process may be cascading the children already (a continuation): let it finish, then do what is left.
      await continuations.get(parentId);
      const { state: parentState, terminalAt, open } = (await memo.take(store, parentId)) ?? (await openChildren(store, parentId));
      // Terminal states never change, and only a terminal transition schedules this work.
      if (!isTerminalMissionState(parentState) || terminalAt === undefined) throw new Error(`mission ${parentId} is ${parentState}, not terminal: nothing to cascade`);
      const correlationId = typeof work.payload['correlation_id'] === 'string' ? work.payload['correlation_id'] : `cascade:${parentId}`;
      const causationId = typeof work.payload['trigger_event_id'] === 'string' ? work.payload['trigger_event_id'] : `pm_mission_cascade-${parentId}`;
      await cascadeChildren({ id: parentId, state: parentState, terminalAt }, open, { correlationId, causationId, trace: work.trace }, signal);
    },
    retry: { maxAttempts: 50, initialDelayMs: 200, maxDelayMs: 30_000, leaseMs: 60_000, ...options.retry },
  };
}

/**
 * The open children of a child this process just cascaded, as its fold showed them, so that the child's
 * own work item (the next generation) need not read and parse its stream again — a child with 99
 * children holds 99 ChildMissionAttached events with their evidence. Used only when the stream's
 * revision is still the one the cascade committed (one cheap revision lookup), so anything appended
 * since — a detachment, another replica's write — means a normal read. Taken once, bounded.
 */
class OpenChildrenMemo {
  private readonly entries = new Map<string, RememberedChildren>();

  constructor(private readonly capacity: number) {}

  /** The child's open children after the cascade committed on it, if it has any. */
  remember(streamName: string, after: { state: MissionState; revision: bigint | 'no_stream' }): RememberedChildren | undefined {
    const { state, revision } = after;
    if (revision === 'no_stream' || !missionExists(state)) return undefined;
    const open = [...state.openChildren.keys()];
    if (open.length === 0) return undefined;
    const entry = { revision, state: state.lifecycle, terminalAt: terminalSince(state, state.updatedAt), open };
    this.set(streamName, entry);
    return entry;
  }

  /** A continuation cascaded all of them: the work item has nothing left (while the stream is unchanged). */
  settled(streamName: string, remembered: RememberedChildren): void {
    this.set(streamName, { ...remembered, open: [] });
  }

  async take(store: EventStore, missionId: string): Promise<Omit<RememberedChildren, 'revision'> | undefined> {
    const streamName = missionStreamName(missionId);
    const entry = this.entries.get(streamName);
    if (entry === undefined) return undefined;
    this.entries.delete(streamName);
    const revision = await store.streamRevision(streamName);
    return revision === entry.revision ? { state: entry.state, terminalAt: entry.terminalAt, open: entry.open } : undefined;
  }

  private set(streamName: string, entry: RememberedChildren): void {
    this.entries.delete(streamName);
    this.entries.set(streamName, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/**
 * The parent's stored state (and when a terminal one took effect, as `evolve` folds `terminalAt`) and its
 * attached children not yet marked terminal, in attachment order: what `missionDecider.evolve` folds into
 * `lifecycle`, `terminalAt` and `children`, read in one linear pass. (The
 * decider's fold copies the children map per attachment — quadratic in the number of children, ~0.1 s
 * for 1,000 — and the cascade needs nothing else from the parent.)
 */
export async function openChildren(store: EventStore, missionId: string): Promise<{ state: MissionLifecycleState; terminalAt: Date | undefined; open: string[] }> {
  let state: MissionLifecycleState | undefined;
  let terminalAt: Date | undefined;
  const terminal = new Map<string, boolean>();
  for await (const event of store.readStream(missionStreamName(missionId))) {
    const data = event.data;
    if (event.type === 'ChildMissionAttached') {
      terminal.set(String(data['child_mission_id']), false);
    } else if (event.type === 'ChildMissionDetached') {
      const childId = String(data['child_mission_id']);
      if (terminal.has(childId)) terminal.set(childId, true);
    } else if (typeof data['state'] === 'string') {
      // MissionCreated and every lifecycle transition carry the mission's state after the event.
      state = data['state'] as MissionLifecycleState;
      terminalAt = event.type !== 'MissionCreated' && isTerminalMissionState(state) ? terminalEffectiveAt(event.type, data) : undefined;
    }
  }
  if (state === undefined) throw new MissionNotFoundError(missionId);
  const open: string[] = [];
  for (const [childId, isTerminal] of terminal) if (!isTerminal) open.push(childId);
  return { state, terminalAt, open };
}
