import type { EventStore } from './port/event-store.js';
import { EmbeddedEventStore } from './embedded/embedded-event-store.js';

export interface OpenEventStoreOptions {
  /** `esdb://…` or `kurrentdb://…` selects EventStoreDB / KurrentDB; unset or empty selects the embedded SQLite store. */
  readonly connectionString?: string;
  /** Where the embedded store keeps `events.sqlite`. */
  readonly dataDir: string;
  readonly logger: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

/** Picks the adapter from configuration (DESIGN 5: EVENTSTORE_CONNECTION_STRING unset → embedded). */
export async function openEventStore(options: OpenEventStoreOptions): Promise<EventStore> {
  const connectionString = options.connectionString?.trim();
  if (connectionString) {
    // Loaded only here: its gRPC client is ≈ 150 files a service on the embedded store would load for nothing.
    const { EventStoreDbEventStore } = await import('./eventstoredb/eventstoredb-event-store.js');
    return EventStoreDbEventStore.connect({ connectionString, logger: options.logger });
  }
  return EmbeddedEventStore.open({ dataDir: options.dataDir, logger: options.logger });
}
