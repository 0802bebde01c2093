import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { WrongExpectedRevisionError, type AllFilter, type EventStore, type JsonObject, type Position, type RecordedEvent } from '@mission/event-store';
import { handleCommand } from './handle-command.js';
import type { CommandContext } from './event-metadata.js';
import { backoffDelayMs } from './backoff.js';
import type { ProcessManager, ProcessManagerRunnerOptions, RetryPolicy, ScheduledWork, WorkItem } from './process-manager.js';
import { TriggerCheckpoint } from './trigger-checkpoint.js';
import { countBacklog } from './process-manager-backlog.js';
import { recordWorkResult, scheduledTrace, scheduleWork, type WorkCommand } from './work-commands.js';
import { processManagerContext } from './work-timing.js';
import { OpenWorkIndex, type OpenWorkItem } from './open-work-index.js';
import { scheduleAppend, WorkScheduleBatches } from './work-schedule-batches.js';
import { incarnationOf, isEarlierIncarnation, WorkNotClaimableError, workItemDecider } from './work-item.decider.js';

const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 8, initialDelayMs: 500, maxDelayMs: 60_000, leaseMs: 30_000 };
const NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Runs a process manager durably:
 * 1. a checkpointed subscription to the trigger categories turns events into `WorkScheduled` on
 *    `pm_<name>-<key>` (idempotent: a replayed trigger finds the stream already scheduled);
 * 2. an index of open work follows the `pm_<name>` category;
 * 3. due work is claimed with an expected-revision append (one replica wins), performed, and its
 *    result appended; failures are retried with back-off until `maxAttempts`, then abandoned.
 * Everything is in the store, so a restart — or another replica — resumes exactly where it stopped.
 */
export class ProcessManagerRunner {
  private readonly policy: RetryPolicy;
  private readonly clock: () => Date;
  private readonly random: () => number;
  readonly replicaId: string;
  private readonly open = new OpenWorkIndex();
  private readonly inFlight = new Set<string>();
  private subscriptions: Array<ReturnType<EventStore['subscribeToAll']>> = [];
  private loops: Promise<void>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly performing = new Set<Promise<void>>();
  /** Aborts work in progress at stop: its claim stays and is taken again after a restart. */
  private stopSignal = new AbortController();
  private loopFailure: unknown;
  /** The last trigger event whose work was planned (undefined: none since the stored checkpoint). */
  private triggerPosition: Position | undefined;
  /** The scheduling of the current start's trigger loop. */
  private scheduling: WorkScheduleBatches | undefined;
  /** The last work event taken into the index of open work. */
  private workPosition: Position | undefined;
  /**
   * No open work is due before this time (ms): the poll skips scanning the index until then. Lowered
   * whenever the index changes; -Infinity forces the next poll to scan. (The index of a PM scheduling
   * far-future work — e.g. grant lapse, one item per child — holds thousands of items, and scanning it
   * every poll cost more CPU than the cascade's own work.)
   */
  private noneDueBefore = Number.NEGATIVE_INFINITY;
  private runScheduled = false;
  /** The last scan stopped at the concurrency limit: a finished attempt looks again at once. */
  private workWaitsForSlot = false;

  constructor(
    private readonly store: EventStore,
    private readonly manager: ProcessManager,
    private readonly options: ProcessManagerRunnerOptions = {},
  ) {
    if (!NAME.test(manager.name)) throw new TypeError(`process manager name must match ${NAME}, got ${JSON.stringify(manager.name)}`);
    this.policy = { ...DEFAULT_RETRY, ...manager.retry };
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.replicaId = incarnationOf(options.replicaId ?? hostname(), randomBytes(6).toString('hex'));
  }

  get name(): string { return this.manager.name; }

  /** Set when a subscription loop died (e.g. the store became unreadable); the service should restart. */
  get failure(): unknown {
    return this.loopFailure;
  }

  get workCategory(): string {
    return `pm_${this.manager.name}`;
  }

  /** The events that trigger work: the trigger categories, narrowed to `triggerTypes` when the manager names them. */
  private get triggerFilter(): AllFilter {
    const types = this.manager.triggerTypes;
    return { streamCategories: this.manager.triggers, ...(types ? { eventTypes: types } : {}) };
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.stopSignal = new AbortController();
    const checkpoint = await this.store.checkpoints.load(this.checkpointName);
    this.triggerPosition = checkpoint;
    this.workPosition = undefined;
    const triggers = this.store.subscribeToAll({ ...(checkpoint ? { after: checkpoint } : {}), filter: this.triggerFilter });
    const work = this.store.subscribeToAll({ filter: { streamCategories: [this.workCategory] } });
    this.subscriptions = [triggers, work];
    // The loops start outside any request (start may be called while one runs, e.g. in tests).
    this.loops = [this.guard('triggers', this.followTriggers(triggers)), this.guard('work index', this.followWork(work))];
    this.timer = setInterval(() => this.runDueWork(), this.options.pollMs ?? 200);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.stopSignal.abort();
    await Promise.all(this.subscriptions.map((subscription) => subscription.close()));
    await Promise.all(this.loops);
    await Promise.all(this.performing);
  }

  /**
   * Events not yet taken in, counted up to `bound + 1` (process-manager-backlog.ts), plus work planned from
   * triggers already taken in but not committed yet: that work is not in the store for the index to follow.
   */
  async backlog(bound: number): Promise<number> {
    const uncommitted = this.scheduling?.uncommitted ?? 0;
    if (uncommitted > bound) return bound + 1;
    return uncommitted + await countBacklog(this.store, bound - uncommitted, [
      { after: this.triggerPosition, filter: this.triggerFilter },
      { after: this.workPosition, filter: { streamCategories: [this.workCategory] } },
    ]);
  }

  /** Schedules work directly (without a trigger event), e.g. from a command handler. */
  schedule(work: ScheduledWork, context: CommandContext, trigger: JsonObject | null = null): Promise<void> {
    return scheduleWork(this.store, this.workStream(work.key), work, context, trigger);
  }

  /** Open (not yet completed or abandoned) work as this replica sees it: when each item is due, who holds it. */
  openWork(): ReadonlyMap<string, OpenWorkItem> {
    return this.open.items;
  }

  private get checkpointName(): string { return `pm_${this.manager.name}_triggers`; }
  private workStream(key: string): string { return `${this.workCategory}-${key}`; }

  /**
   * Schedules the work each trigger calls for, in batches (work-schedule-batches.ts, ADR 0069): a long history
   * of triggers costs a few commits, not one awaited commit per trigger window. The checkpoint only moves past
   * a trigger once everything scheduled up to it is committed.
   */
  private async followTriggers(subscription: AsyncIterable<RecordedEvent>): Promise<void> {
    let failure: { error: unknown } | undefined;
    // Reported at once (readiness fails) even if no further trigger arrives to end the loop.
    const fail = (error: unknown): void => {
      if (failure !== undefined) return;
      failure = { error };
      this.loopFailure = error;
      this.options.logger?.error({ process_manager: this.manager.name, loop: 'triggers', err: error }, 'process manager loop stopped');
    };
    const checkpoint = new TriggerCheckpoint(this.store.checkpoints, this.checkpointName, fail);
    const batches = new WorkScheduleBatches(this.store);
    this.scheduling = batches;
    // The newest scheduling added: batches settle in order, so once it resolved all earlier ones are committed.
    let scheduledSoFar: readonly Promise<void>[] = [];
    try {
      for await (const event of subscription) {
        if (failure !== undefined) throw failure.error;
        const works = this.manager.plan(event);
        if (works.length > 0) {
          const trigger = { stream: event.streamName, revision: event.revision.toString(), event_id: event.id };
          const context = this.contextFor(event);
          const scheduled = batches.add(works.map((work) => scheduleAppend(this.workStream(work.key), work, context, trigger)));
          scheduled.catch(fail);
          scheduledSoFar = [scheduled];
        }
        this.triggerPosition = event.position;
        checkpoint.offer(event.position, scheduledSoFar);
        const room = batches.whenRoom();
        if (room !== undefined) await room;
      }
    } finally {
      await checkpoint.settled();
    }
    if (failure !== undefined) throw failure.error;
  }

  private async followWork(subscription: AsyncIterable<RecordedEvent>): Promise<void> {
    for await (const event of subscription) {
      const item = this.open.apply(event);
      if (item !== undefined) {
        const due = this.dueAt(item);
        if (due < this.noneDueBefore) this.noneDueBefore = due;
        // Work that is due already starts now rather than at the next poll: each generation of a
        // cascade is a work item scheduled by the previous one, so the poll interval added up per generation.
        if (due <= this.clock().getTime()) this.runSoon();
      }
      this.workPosition = event.position;
    }
  }

  /** Work claimed by an earlier start of this replica is due at once: that start is over (ADR 0058). */
  private dueAt(item: OpenWorkItem): number {
    if (item.status === 'claimed' && isEarlierIncarnation(item.replica!, this.replicaId)) return Number.NEGATIVE_INFINITY;
    return item.at;
  }

  private runSoon(): void {
    if (this.runScheduled || this.stopping) return;
    this.runScheduled = true;
    setImmediate(() => {
      this.runScheduled = false;
      this.runDueWork();
    });
  }

  private runDueWork(): void {
    if (this.stopping) return;
    const now = this.clock();
    if (now.getTime() < this.noneDueBefore) return;
    const limit = this.options.concurrency ?? 8;
    this.workWaitsForSlot = false;
    let nextDue = Number.POSITIVE_INFINITY;
    for (const [stream, open] of this.open.items) {
      if (this.inFlight.size >= limit) {
        nextDue = Number.NEGATIVE_INFINITY; // more may be due: look again when a slot is free
        this.workWaitsForSlot = true;
        break;
      }
      if (this.inFlight.has(stream)) continue;
      const dueAt = this.dueAt(open);
      if (Number.isNaN(dueAt)) continue;
      if (dueAt > now.getTime()) {
        if (dueAt < nextDue) nextDue = dueAt;
        continue;
      }
      this.inFlight.add(stream);
      const run = this.attempt(stream)
        .catch((error: unknown) => {
          // The claim stays recorded; its lease runs out and the work is attempted again.
          this.options.logger?.error({ process_manager: this.manager.name, stream, err: error }, 'could not record the outcome of a work attempt');
        })
        .finally(() => {
          this.inFlight.delete(stream);
          this.performing.delete(run);
          // Its state may not have changed (another replica had it, the result was not recorded): look again.
          this.noneDueBefore = Number.NEGATIVE_INFINITY;
          // A slot is free: due work waiting for it starts now, not at the next poll.
          if (this.workWaitsForSlot) this.runSoon();
        });
      this.performing.add(run);
    }
    // The scan is synchronous: nothing changed the index meanwhile. Later changes lower this again.
    this.noneDueBefore = nextDue;
  }

  private async attempt(stream: string): Promise<void> {
    const context = this.contextFor();
    let claimed;
    try {
      claimed = await handleCommand(this.store, stream, workItemDecider, { type: 'ClaimWork', now: this.clock(), replica: this.replicaId, leaseMs: this.policy.leaseMs }, context, { maxAttempts: 1 });
    } catch (error) {
      if (error instanceof WorkNotClaimableError || error instanceof WrongExpectedRevisionError) return; // another replica has it
      this.options.logger?.error({ process_manager: this.manager.name, stream, err: error }, 'could not claim work');
      return;
    }
    const state = claimed.state;
    if (state.status !== 'claimed') return;
    // In the trace of the request that caused the work: its events and outgoing calls carry it (ADR 0050).
    const item: WorkItem = { key: state.key, payload: state.payload, attempt: state.attempts, trace: await scheduledTrace(this.store, stream) };
    let failure: unknown;
    const signal = AbortSignal.any([AbortSignal.timeout(Math.max(1, Math.floor(this.policy.leaseMs * 0.8))), this.stopSignal.signal]);
    try {
      await this.manager.perform(item, signal);
    } catch (error) {
      failure = error ?? new Error('work failed');
    }
    // Stopped mid-attempt: not a failure of the work. The claim stays recorded and is taken again once its
    // lease runs out.
    if (this.stopSignal.signal.aborted) return;
    if (failure === undefined) {
      await this.record(stream, { type: 'CompleteWork', replica: this.replicaId, attempt: item.attempt });
      return;
    }
    const message = failure instanceof Error ? failure.message : String(failure);
    const nextAttemptAt = new Date(this.clock().getTime() + backoffDelayMs(item.attempt, this.policy, this.random));
    this.options.logger?.warn({ process_manager: this.manager.name, key: item.key, attempt: item.attempt, err: message }, 'work attempt failed');
    await this.record(stream, {
      type: 'FailWorkAttempt', now: this.clock(), replica: this.replicaId, attempt: item.attempt,
      error: message.slice(0, 1000), nextAttemptAt, maxAttempts: this.policy.maxAttempts,
    });
  }

  private async record(stream: string, command: WorkCommand): Promise<void> {
    if (!(await recordWorkResult(this.store, stream, command, this.contextFor()))) {
      this.options.logger?.warn({ process_manager: this.manager.name, stream }, 'lease ran out before the result was recorded; another replica retries');
    }
  }

  private contextFor(trigger?: RecordedEvent): CommandContext {
    return processManagerContext(this.manager.name, this.clock(), trigger);
  }

  private guard(loop: string, running: Promise<void>): Promise<void> {
    // A loop that dies must be visible: readiness reports it and the operator restarts the service.
    return running.catch((error: unknown) => {
      if (this.loopFailure === error) return; // already reported where it happened
      this.loopFailure = error;
      this.options.logger?.error({ process_manager: this.manager.name, loop, err: error }, 'process manager loop stopped');
    });
  }
}
