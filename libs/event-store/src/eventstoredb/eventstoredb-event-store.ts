import { esdbConnectionString } from './connection-string.js';
import type { ReadPosition, RecordedEvent as ClientRecordedEvent } from '@eventstore/db-client';
import type {
  AllFilter, AllSubscription, AppendOptions, AppendResult, CheckpointStore, EventData, EventStore, ReadAllOptions, ReadStreamOptions,
  RecordedEvent, StreamAppend, StreamAppendOutcome, SubscribeToAllOptions,
} from '../port/event-store.js';
import {
  EventStoreError, EventStoreStartupError, EventStoreUnavailableError, StreamDeletedError, WrongExpectedRevisionError,
} from '../port/errors.js';
import { comparePositions, type Position } from '../port/position.js';
import { isValidCategory } from '../port/stream-name.js';
import { assertExpectedRevision, assertExpirable, assertStreamName, serializeEvents, serializeStreamAppends, type SerializedEvent } from '../port/validate-events.js';
import { readLimit, checkedPosition } from '../port/read-options.js';
import { startRevision } from './esdb-start-revision.js';
import { softDeleteStreams } from './esdb-expire.js';
import { ResubscribingAllSubscription } from './esdb-all-subscription.js';
import { EventStoreDbCheckpointStore } from './esdb-checkpoints.js';
import { BACKWARDS, END, EventStoreDBClient, FORWARDS, START, type EsdbClient } from './esdb-client.js';
import { isStreamNotFound, toPortError } from './esdb-errors.js';
import { AllEventsView, expectedRevisionOption, isAfter, positionOf, toClientEvents, toRecordedEvent } from './esdb-events.js';
import { consoleLogger, redactConnectionString, type EventStoreDbLogger } from './esdb-logger.js';

export interface EventStoreDbOptions {
  /** e.g. `esdb://localhost:2113?tls=false`; may carry credentials, which are never logged. */
  connectionString: string;
  logger?: EventStoreDbLogger;
  /** Category of the checkpoint streams (`<prefix>-<consumer>`); `checkpoint` by default. */
  checkpointStreamPrefix?: string;
}

/** Events per server read: bounds memory per page and lets an abandoned read stop early. */
const PAGE_SIZE = 500;
const PING_TIMEOUT_MS = 5_000;

/**
 * The EventStoreDB / KurrentDB adapter, over `@eventstore/db-client` 6.2.1 (gRPC).
 *
 * Input is validated with the port's own rules before anything goes on the wire, so both adapters
 * refuse the same things with the same errors. Client errors are translated by toPortError; the
 * client reconnects by itself after a transport failure, and calls made while it cannot reach the
 * server fail with EventStoreUnavailableError. See docs/decisions/0002.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  readonly checkpoints: CheckpointStore;
  private readonly subscriptions = new Set<ResubscribingAllSubscription>();
  private closed = false;

  static async connect(options: EventStoreDbOptions): Promise<EventStoreDbEventStore> {
    const logger = options.logger ?? consoleLogger;
    const checkpointCategory = options.checkpointStreamPrefix ?? 'checkpoint';
    if (!isValidCategory(checkpointCategory)) {
      throw new EventStoreStartupError(`checkpointStreamPrefix must be a stream category (letters, digits, _), got ${JSON.stringify(checkpointCategory)}`);
    }
    const endpoint = redactConnectionString(options.connectionString);
    let client: EsdbClient;
    try {
      client = EventStoreDBClient.connectionString(esdbConnectionString(options.connectionString));
    } catch (error) {
      throw new EventStoreStartupError(`invalid EventStoreDB connection string ${endpoint}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    const store = new EventStoreDbEventStore(client, checkpointCategory, logger);
    try {
      await store.ping();
      logger.info({ event_store: 'eventstoredb', endpoint }, `event store: EventStoreDB at ${endpoint}`);
    } catch (error) {
      // Start anyway: the server may come up after us (compose, rolling restarts); ping() reports readiness.
      logger.warn(
        { event_store: 'eventstoredb', endpoint, err: error instanceof Error ? error.message : String(error) },
        'EventStoreDB is not reachable yet; calls fail with EventStoreUnavailableError until it is',
      );
    }
    return store;
  }

  private constructor(
    private readonly client: EsdbClient,
    private readonly checkpointCategory: string,
    private readonly logger: EventStoreDbLogger,
  ) {
    this.checkpoints = new EventStoreDbCheckpointStore(this, client, checkpointCategory, logger);
  }

  async appendToStream(streamName: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen();
    const serialized = serializeEvents(streamName, events);
    const expected = options.expectedRevision ?? 'any';
    assertExpectedRevision(expected);
    return this.appendSerialized(streamName, serialized, expected);
  }

  /** EventStoreDB appends to one stream at a time: the appends run one after another, in order. */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    this.assertOpen();
    const serialized = serializeStreamAppends(appends);
    const outcomes: StreamAppendOutcome[] = [];
    for (const { streamName, events, expected } of serialized) {
      try {
        outcomes.push({ ok: true, result: await this.appendSerialized(streamName, events, expected) });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) outcomes.push({ ok: false, error });
        else throw error;
      }
    }
    return outcomes;
  }

  private async appendSerialized(streamName: string, serialized: SerializedEvent[], expected: NonNullable<AppendOptions['expectedRevision']>): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(streamName, toClientEvents(serialized), expectedRevisionOption(expected));
      if (!result.position) throw new EventStoreError(`append to ${streamName}: EventStoreDB returned no position`);
      return { nextExpectedRevision: result.nextExpectedRevision, position: { commit: result.position.commit, prepare: result.position.prepare } };
    } catch (error) {
      throw toPortError(error, { operation: 'append to', streamName, expected });
    }
  }

  async *readStream(streamName: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    assertStreamName(streamName);
    const backwards = options.direction === 'backwards';
    let remaining = readLimit(options.maxCount);
    let from = startRevision(options.fromRevision, backwards);
    // Nothing to read, but a tombstoned stream still has to say so, as it does in the embedded store.
    if (remaining === 0 || (backwards && from === 'start') || (!backwards && from === 'end')) {
      await this.streamRevision(streamName);
      return;
    }
    while (remaining > 0) {
      const size = Math.min(PAGE_SIZE, remaining);
      const page = await this.readStreamPage(streamName, from, backwards, size);
      for (const event of page) yield event;
      if (page.length < size) return;
      remaining -= page.length;
      const last = page[page.length - 1]!.revision;
      if (backwards && last === 0n) return;
      from = backwards ? last - 1n : last + 1n;
    }
  }

  async streamRevision(streamName: string): Promise<bigint | 'no_stream'> {
    this.assertOpen();
    assertStreamName(streamName);
    const [last] = await this.readStreamPage(streamName, END, true, 1);
    return last ? last.revision : 'no_stream';
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen();
    let remaining = readLimit(options.maxCount);
    if (remaining === 0) return;
    for await (const page of this.readAllPages(options)) {
      for (const event of page) {
        yield event;
        if (--remaining === 0) return;
      }
    }
  }

  /**
   * `readAll` a server page at a time (no `maxCount`): one await per page instead of one per event, for
   * readers that go through the whole log (mission-audit, ADR 0029). Pages are never empty.
   */
  async *readAllPages(options: Omit<ReadAllOptions, 'maxCount'> = {}): AsyncIterable<RecordedEvent[]> {
    this.assertOpen();
    const view = new AllEventsView(options.filter, this.checkpointCategory);
    if (view.matchesNothing) return;
    let cursor = options.after === undefined ? undefined : checkedPosition(options.after, 'after');
    for (;;) {
      // The server reads forwards *from* a position, inclusively: the event at `cursor` comes back and is skipped.
      const page = await this.readAllPage(cursor ?? START, false);
      const shown: RecordedEvent[] = [];
      let advanced = false;
      for (const event of page) {
        const position = positionOf(event);
        if (!isAfter(position, cursor)) continue;
        cursor = position;
        advanced = true;
        if (view.shows(event)) shown.push(toRecordedEvent(event));
      }
      if (shown.length > 0) yield shown;
      if (page.length < PAGE_SIZE || !advanced) return;
    }
  }

  async headPosition(filter?: AllFilter): Promise<Position | undefined> {
    this.assertOpen();
    const view = new AllEventsView(filter, this.checkpointCategory);
    if (view.matchesNothing) return undefined;
    let cursor: Position | undefined;
    for (;;) {
      const page = await this.readAllPage(cursor ?? END, true);
      let advanced = false;
      for (const event of page) {
        const position = positionOf(event);
        if (cursor && comparePositions(position, cursor) >= 0) continue;
        cursor = position;
        advanced = true;
        if (view.shows(event)) return position;
      }
      if (page.length < PAGE_SIZE || !advanced) return undefined;
    }
  }

  subscribeToAll(options: SubscribeToAllOptions = {}): AllSubscription {
    this.assertOpen();
    const subscription = new ResubscribingAllSubscription({
      client: this.client,
      view: new AllEventsView(options.filter, this.checkpointCategory),
      after: options.after === undefined ? undefined : checkedPosition(options.after, 'after'),
      logger: this.logger,
      onFinished: (finished) => this.subscriptions.delete(finished),
    });
    this.subscriptions.add(subscription);
    return subscription;
  }

  async tombstoneStream(streamName: string, options: AppendOptions = {}): Promise<void> {
    this.assertOpen();
    assertStreamName(streamName);
    const expected = options.expectedRevision ?? 'any';
    assertExpectedRevision(expected);
    try {
      // The client's type leaves out stream_exists, which its implementation and the server both accept.
      const option = expectedRevisionOption(expected) as Parameters<EsdbClient['tombstoneStream']>[1];
      await this.client.tombstoneStream(streamName, option);
    } catch (error) {
      throw toPortError(error, { operation: 'tombstone', streamName, expected });
    }
  }

  async expireStreams(streamNames: readonly string[]): Promise<void> {
    this.assertOpen();
    assertExpirable(streamNames);
    await softDeleteStreams(this.client, streamNames);
  }

  /** EventStoreDB acknowledges a write only once it is durable: nothing ever waits here. */
  whenDurable(): undefined {
    return undefined;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new EventStoreUnavailableError('EventStoreDB event store is closed');
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new EventStoreUnavailableError(`EventStoreDB did not answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([(async () => { for await (const item of read) void item; })(), timeout]);
    } catch (error) {
      const mapped = toPortError(error, { operation: 'ping' });
      throw mapped instanceof EventStoreUnavailableError ? mapped : new EventStoreUnavailableError(`EventStoreDB ping failed: ${mapped.message}`, { cause: error });
    } finally {
      clearTimeout(timer);
      if (!read.destroyed) {
        await read.cancel().catch(() => undefined);
        read.destroy();
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }

  private async readStreamPage(streamName: string, from: bigint | 'start' | 'end', backwards: boolean, maxCount: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamName, { fromRevision: from, direction: backwards ? BACKWARDS : FORWARDS, maxCount });
      for await (const resolved of read) {
        if (resolved.event) events.push(toRecordedEvent(resolved.event));
      }
    } catch (error) {
      // Only "no such stream" means empty; a tombstoned stream is an error of its own (StreamDeletedError).
      if (isStreamNotFound(error)) return [];
      throw toPortError(error, { operation: 'read', streamName });
    }
    return events;
  }

  private async readAllPage(from: ReadPosition, backwards: boolean): Promise<ClientRecordedEvent[]> {
    const events: ClientRecordedEvent[] = [];
    try {
      const read = this.client.readAll({ fromPosition: from, direction: backwards ? BACKWARDS : FORWARDS, maxCount: PAGE_SIZE });
      for await (const resolved of read) {
        if (resolved.event) events.push(resolved.event);
      }
    } catch (error) {
      throw toPortError(error, { operation: 'read $all' });
    }
    return events;
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailableError('EventStoreDB event store is closed');
  }
}
