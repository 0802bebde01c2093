import { WrongExpectedRevisionError, type EventStore, type JsonObject, type StreamAppend, type StreamAppendOutcome } from '@mission/event-store';
import type { CommandContext } from './event-metadata.js';
import { prepareAppend } from './handle-command.js';
import type { ScheduledWork } from './process-manager.js';
import { workItemDecider } from './work-item.decider.js';

/**
 * Work streams created by one `appendToStreams` call. Large enough that a start on a history of thousands of
 * triggers takes a handful of commits (one commit and one disk wait per trigger window made 3,000 missions
 * cost the issuer's first start ≈ 5 s, issue 15 item 6); small enough that the commit, which runs on the
 * event loop, holds requests up for a few milliseconds only.
 */
export const SCHEDULE_BATCH_STREAMS = 256;

/**
 * The append that creates a work item's stream with its `WorkScheduled`, or nothing if the stream exists: a
 * work stream only ever begins with `WorkScheduled`, so "already exists" is exactly the decider's "already
 * scheduled" (a replayed trigger), decided without reading the stream first.
 */
export function scheduleAppend(stream: string, work: ScheduledWork, context: CommandContext, trigger: JsonObject | null): StreamAppend {
  const prepared = prepareAppend(stream, workItemDecider, { state: workItemDecider.initialState, revision: 'no_stream' }, { type: 'ScheduleWork', key: work.key, dueAt: work.dueAt, payload: work.payload, trigger }, context);
  return { streamName: stream, events: prepared.events, expectedRevision: 'no_stream' };
}

interface Group {
  readonly appends: readonly StreamAppend[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Batches committing at once: the next one commits while the disk wait of the one before runs. */
export const SCHEDULE_BATCHES_IN_FLIGHT = 4;

type Outcome = { readonly ok: true; readonly outcomes: readonly StreamAppendOutcome[] } | { readonly ok: false; readonly error: unknown };

/**
 * Schedules the work of many triggers in few commits: what is added while batches commit waits and goes
 * into the next one (at most `maxStreams` per batch, `inFlight` batches at once, so commits overlap the
 * disk waits of the ones before). Batches are appended in the order they were taken and SETTLED in that
 * order, so once a group's promise resolved, every group added before it is committed too; after a failure
 * every later group is rejected, even one whose batch committed (nothing counts as scheduled past a failure,
 * so no checkpoint moves past it; a restart finds those streams and schedules them nothing twice).
 */
export class WorkScheduleBatches {
  private pending: Group[] = [];
  private pendingStreams = 0;
  private committingStreams = 0;
  private batchesInFlight = 0;
  private flushScheduled = false;
  /** Settles after every batch taken so far has settled; never rejects. */
  private settledSoFar: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  private roomWaiters: Array<() => void> = [];

  constructor(
    private readonly store: Pick<EventStore, 'appendToStreams'>,
    private readonly maxStreams = SCHEDULE_BATCH_STREAMS,
    private readonly inFlight = SCHEDULE_BATCHES_IN_FLIGHT,
  ) {}

  /** Work planned and not committed yet: still a backlog for readiness, although its trigger was taken in. */
  get uncommitted(): number {
    return this.pendingStreams + this.committingStreams;
  }

  /** Resolves once these appends are committed (or their streams found to exist already). */
  add(appends: readonly StreamAppend[]): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ appends, resolve, reject });
      this.pendingStreams += appends.length;
      // Taken on the next turn, so the rest of the subscription's page joins the batch.
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          this.takeBatches();
        });
      }
    });
  }

  /** Undefined while there is room for more; otherwise resolves once a waiting batch has started to commit. */
  whenRoom(): Promise<void> | undefined {
    if (this.pendingStreams < this.maxStreams || this.failure !== undefined) return undefined;
    return new Promise((resume) => this.roomWaiters.push(resume));
  }

  private takeBatches(): void {
    while (this.batchesInFlight < this.inFlight && this.pending.length > 0 && this.failure === undefined) this.commit(this.takeBatch());
    this.wakeRoomWaiters();
  }

  private commit(batch: Group[]): void {
    const streams = batch.reduce((sum, group) => sum + group.appends.length, 0);
    this.batchesInFlight += 1;
    this.committingStreams += streams;
    const outcome: Promise<Outcome> = this.store.appendToStreams(batch.flatMap((group) => group.appends)).then(
      (outcomes) => ({ ok: true, outcomes }),
      (error: unknown) => ({ ok: false, error }),
    );
    const before = this.settledSoFar;
    this.settledSoFar = (async () => {
      const result = await outcome;
      await before;
      this.batchesInFlight -= 1;
      this.committingStreams -= streams;
      if (this.failure !== undefined) this.failAll(batch, this.failure.error);
      else if (!result.ok) this.failAll(batch, result.error);
      else this.settle(batch, result.outcomes);
      this.takeBatches();
    })();
  }

  /** Whole groups, at least one, while they fit in `maxStreams`. */
  private takeBatch(): Group[] {
    let count = 0;
    let streams = 0;
    while (count < this.pending.length && (count === 0 || streams + this.pending[count]!.appends.length <= this.maxStreams)) {
      streams += this.pending[count]!.appends.length;
      count += 1;
    }
    this.pendingStreams -= streams;
    return this.pending.splice(0, count);
  }

  private settle(batch: readonly Group[], outcomes: readonly StreamAppendOutcome[]): void {
    let index = 0;
    for (const [position, group] of batch.entries()) {
      const refusal = outcomes.slice(index, index + group.appends.length).find((outcome) => !outcome.ok && !(outcome.error instanceof WrongExpectedRevisionError));
      index += group.appends.length;
      // A wrong expected revision: the work stream exists, so this work was scheduled already (idempotent).
      if (refusal === undefined || refusal.ok) {
        group.resolve();
        continue;
      }
      // A tombstoned work stream is a fault (reading it would throw too). Nothing after it counts as scheduled,
      // so that no checkpoint moves past this trigger.
      this.failAll(batch.slice(position), refusal.error);
      return;
    }
  }

  private failAll(batch: readonly Group[], error: unknown): void {
    this.failure ??= { error };
    for (const group of [...batch, ...this.pending]) group.reject(error);
    this.pending = [];
    this.pendingStreams = 0;
    this.wakeRoomWaiters();
  }

  private wakeRoomWaiters(): void {
    if (this.pendingStreams >= this.maxStreams && this.failure === undefined) return;
    for (const resume of this.roomWaiters.splice(0)) resume();
  }
}
