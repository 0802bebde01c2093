import { StreamDeletedError } from '@mission/event-store';
import { EventStoreDbEventStore } from '@mission/event-store/eventstoredb';
import { SourceUnavailableError, type AuditSource } from './audit-source.js';
import { openEmbeddedReader } from './embedded-reader.js';

export interface SourceOptions {
  readonly dataDir?: string;
  readonly connectionString?: string;
  /** The embedded store: 2 reads and hashes on a second thread (ADR 0037). */
  readonly threads?: 1 | 2;
}

const quietLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function openAuditSource(options: SourceOptions): Promise<AuditSource> {
  if (options.connectionString) return fromEventStore(await connect(options.connectionString), options.connectionString);
  if (!options.dataDir) throw new SourceUnavailableError('give --data-dir DIR or --connection-string esdb://…');
  return openEmbeddedReader(options.dataDir, options.threads === 1 ? { readerThread: false } : {});
}

async function connect(connectionString: string): Promise<EventStoreDbEventStore> {
  try {
    const store = await EventStoreDbEventStore.connect({ connectionString, logger: quietLogger });
    await store.ping();
    return store;
  } catch (error) {
    throw new SourceUnavailableError(`cannot read EventStoreDB at ${connectionString}: ${(error as Error).message}`);
  }
}

/** EventStoreDB through the store port; the audit only ever calls its read methods. */
function fromEventStore(store: EventStoreDbEventStore, connectionString: string): AuditSource {
  return {
    description: `EventStoreDB ${connectionString.replace(/\/\/[^@/]*@/, '//***@')}`,
    readAll: (after) => store.readAll(after ? { after } : {}),
    async *readAllPages(after) {
      for await (const events of store.readAllPages(after ? { after } : {})) yield { events };
    },
    async *readStream(streamName) {
      try {
        yield* store.readStream(streamName);
      } catch (error) {
        if (!(error instanceof StreamDeletedError)) throw error;
      }
    },
    async isTombstoned(streamName) {
      try {
        await store.streamRevision(streamName);
        return false;
      } catch (error) {
        if (error instanceof StreamDeletedError) return true;
        throw error;
      }
    },
    close: () => store.close(),
  };
}
