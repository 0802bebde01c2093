import type { AppendOptions, AppendResult, CheckpointStore, EventData, ReadStreamOptions, RecordedEvent } from '../port/event-store.js';
import { EventStoreError, EventStoreUnavailableError, InvalidEventError } from '../port/errors.js';
import { formatPosition, parsePosition, type Position } from '../port/position.js';
import type { EsdbClient } from './esdb-client.js';
import { toPortError } from './esdb-errors.js';
import type { EventStoreDbLogger } from './esdb-logger.js';

/** Checkpoint streams keep this many events; only the last is read, the rest help diagnose. */
export const CHECKPOINT_MAX_COUNT = 10;
export const CHECKPOINT_EVENT_TYPE = 'CheckpointStored';
const MAX_LOG_POSITION = (1n << 64n) - 1n;

interface StreamAccess {
  appendToStream(streamName: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;
  readStream(streamName: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
}

/**
 * Checkpoints as events: `<category>-<consumer>` holds `CheckpointStored { position: "<commit>/<prepare>" }`,
 * the last one wins. The stream is capped with `$maxCount` the first time this process saves to it,
 * so a projection checkpointing after every event does not grow the log without bound (the server
 * scavenges what falls beyond the cap). Checkpoint streams never appear in `$all` reads or
 * subscriptions of the adapter (see AllEventsView).
 */
export class EventStoreDbCheckpointStore implements CheckpointStore {
  private readonly capped = new Set<string>();

  constructor(
    private readonly streams: StreamAccess,
    private readonly client: EsdbClient,
    private readonly category: string,
    private readonly logger: EventStoreDbLogger,
  ) {}

  async load(consumer: string): Promise<Position | undefined> {
    const streamName = this.streamOf(consumer);
    for await (const event of this.streams.readStream(streamName, { direction: 'backwards', fromRevision: 'end', maxCount: 1 })) {
      const text = event.data['position'];
      if (event.type !== CHECKPOINT_EVENT_TYPE || typeof text !== 'string') {
        throw new EventStoreError(`checkpoint stream ${streamName} ends with ${event.type}, not a ${CHECKPOINT_EVENT_TYPE} event`);
      }
      return parsePosition(text);
    }
    return undefined;
  }

  async save(consumer: string, position: Position): Promise<void> {
    const streamName = this.streamOf(consumer);
    assertLogPosition(position);
    await this.ensureCapped(streamName);
    await this.streams.appendToStream(streamName, [{ type: CHECKPOINT_EVENT_TYPE, data: { position: formatPosition(position) } }], {
      expectedRevision: 'any',
    });
  }

  private streamOf(consumer: string): string {
    if (typeof consumer !== 'string' || consumer.length === 0) throw new InvalidEventError('a checkpoint consumer name must be a non-empty string');
    return `${this.category}-${consumer}`;
  }

  /**
   * Stream metadata may be writable by admins only (default ACLs of a secure cluster): then the
   * stream stays uncapped, which costs space, not correctness — so warn and carry on.
   */
  private async ensureCapped(streamName: string): Promise<void> {
    if (this.capped.has(streamName)) return;
    try {
      const { metadata } = await this.client.getStreamMetadata(streamName);
      if (metadata?.maxCount !== CHECKPOINT_MAX_COUNT) {
        await this.client.setStreamMetadata(streamName, { ...metadata, maxCount: CHECKPOINT_MAX_COUNT });
      }
    } catch (error) {
      const mapped = toPortError(error, { operation: 'cap checkpoint stream', streamName });
      if (mapped instanceof EventStoreUnavailableError) throw mapped;
      this.logger.warn(
        { event_store: 'eventstoredb', stream: streamName, err: mapped.message },
        'could not set $maxCount on a checkpoint stream; it will keep every checkpoint',
      );
    }
    this.capped.add(streamName);
  }
}

function assertLogPosition(position: Position): void {
  const valid = (half: unknown) => typeof half === 'bigint' && half >= 0n && half <= MAX_LOG_POSITION;
  if (!valid(position?.commit) || !valid(position?.prepare)) {
    throw new InvalidEventError('a checkpoint position needs bigint commit and prepare between 0 and 2^64 - 1');
  }
}
