import {
  StreamDeletedError, WrongExpectedRevisionError,
  type AllFilter, type AllSubscription, type AppendOptions, type AppendResult, type CheckpointStore, type EventData, type EventStore,
  type Position, type ReadAllOptions, type ReadStreamOptions, type RecordedEvent, type StreamAppend, type StreamAppendOutcome, type SubscribeToAllOptions,
} from '@mission/event-store';
import type { AppendOutcome, ServiceMetrics } from './service-metrics.js';

/**
 * Told of every append the store committed, after it committed: the services count their domain
 * metrics here (ADR 0046), so a refused or failed append, or a decision retried after a conflict, is
 * never counted, and no controller or decider has to know about metrics.
 */
export type AppendObserver = (streamName: string, events: readonly EventData[]) => void;

/**
 * The event store as the service uses it, timing every append (`event_store_append_seconds`) and
 * telling the observer what was committed. Everything else passes through unchanged.
 */
export class MeteredEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly metrics: ServiceMetrics,
    private readonly observer: AppendObserver = () => undefined,
    private readonly onObserverError: (error: unknown) => void = () => undefined,
  ) {}

  get kind(): EventStore['kind'] {
    return this.inner.kind;
  }

  get checkpoints(): CheckpointStore {
    return this.inner.checkpoints;
  }

  async appendToStream(streamName: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult> {
    const started = process.hrtime.bigint();
    let result: AppendResult;
    try {
      result = await this.inner.appendToStream(streamName, events, options);
    } catch (error) {
      this.metrics.observeAppend(outcomeOf(error), secondsSince(started));
      throw error;
    }
    this.metrics.observeAppend('ok', secondsSince(started));
    this.observe(streamName, events);
    return result;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    const started = process.hrtime.bigint();
    let outcomes: StreamAppendOutcome[];
    try {
      outcomes = await this.inner.appendToStreams(appends);
    } catch (error) {
      this.metrics.observeAppend(outcomeOf(error), secondsSince(started));
      throw error;
    }
    this.metrics.observeAppend(outcomes.every((outcome) => outcome.ok) ? 'ok' : 'refused', secondsSince(started));
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) this.observe(appends[index]!.streamName, appends[index]!.events);
    });
    return outcomes;
  }

  readStream(streamName: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent> {
    return this.inner.readStream(streamName, options);
  }

  streamRevision(streamName: string): Promise<bigint | 'no_stream'> {
    return this.inner.streamRevision(streamName);
  }

  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent> {
    return this.inner.readAll(options);
  }

  headPosition(filter?: AllFilter): Promise<Position | undefined> {
    return this.inner.headPosition(filter);
  }

  expireStreams(streamNames: readonly string[]): Promise<void> {
    return this.inner.expireStreams(streamNames);
  }

  subscribeToAll(options?: SubscribeToAllOptions): AllSubscription {
    return this.inner.subscribeToAll(options);
  }

  tombstoneStream(streamName: string, options?: AppendOptions): Promise<void> {
    return this.inner.tombstoneStream(streamName, options);
  }

  whenDurable(): Promise<void> | undefined {
    return this.inner.whenDurable();
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  // Counting must never fail an append that committed.
  private observe(streamName: string, events: readonly EventData[]): void {
    try {
      this.observer(streamName, events);
    } catch (error) {
      this.onObserverError(error);
    }
  }
}

function outcomeOf(error: unknown): AppendOutcome {
  return error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError ? 'refused' : 'error';
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
