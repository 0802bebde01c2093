/**
 * TEST SUPPORT ONLY: the EventStoreDB adapter connected to the gRPC stand-in over a fresh embedded
 * SQLite store, plus small helpers shared by the adapter's wire-level specs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { EmbeddedEventStore } from '../embedded/embedded-event-store.js';
import type { EventData } from '../port/event-store.js';
import { EventStoreDbEventStore, type EventStoreDbOptions } from '../eventstoredb/eventstoredb-event-store.js';
import { startEventStoreDbStandIn, type EventStoreDbStandIn, type EventStoreDbStandInOptions } from './esdb-grpc-stand-in.js';
import { RecordingLogger } from './esdb-recording-logger.js';

export interface EsdbRig {
  readonly backing: EmbeddedEventStore;
  readonly standIn: EventStoreDbStandIn;
  readonly store: EventStoreDbEventStore;
  readonly logger: RecordingLogger;
  /** Another adapter instance on the same stand-in (a second replica, or the same service restarted). */
  connect(options?: Partial<EventStoreDbOptions>): Promise<EventStoreDbEventStore>;
  /** Stops the stand-in and starts a new one on the same port over the same storage: a server restart. */
  restartServer(options?: { downForMs?: number }): Promise<void>;
  dispose(): Promise<void>;
}

export async function openEsdbRig(options: EventStoreDbStandInOptions = {}): Promise<EsdbRig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'es-esdb-rig-'));
  const backing = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 200 });
  let standIn = await startEventStoreDbStandIn(backing, options);
  const logger = new RecordingLogger();
  const opened: EventStoreDbEventStore[] = [];
  const connect = async (extra: Partial<EventStoreDbOptions> = {}) => {
    const store = await EventStoreDbEventStore.connect({ connectionString: standIn.connectionString, logger, ...extra });
    opened.push(store);
    return store;
  };
  const store = await connect();
  return {
    backing,
    get standIn() {
      return standIn;
    },
    store,
    logger,
    connect,
    restartServer: async ({ downForMs = 0 } = {}) => {
      const port = standIn.port;
      await standIn.close();
      if (downForMs > 0) await new Promise((resolve) => setTimeout(resolve, downForMs));
      standIn = await startEventStoreDbStandIn(backing, { ...options, port });
    },
    dispose: async () => {
      await Promise.all(opened.map((s) => s.close()));
      await standIn.close();
      await backing.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const newCategory = (): string => `t${randomBytes(6).toString('hex')}`;

export const event = (type: string, data: Record<string, unknown> = {}): EventData => ({ type, data }) as EventData;

export { collect, take } from './async-iteration.js';
