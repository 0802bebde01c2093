import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from '../embedded/embedded-event-store.js';
import type { EventStore } from '../port/event-store.js';
import { describeEventStoreContract, type EventStoreHarness } from '../testing/contract/event-store.contract.js';
import { describeEventTypeFilterContract } from '../testing/contract/event-type-filter.contract.js';
import { describeExpireStreamsContract } from '../testing/contract/expire-streams.contract.js';
import { startEventStoreDbStandIn, type EventStoreDbStandIn } from '../testing/esdb-grpc-stand-in.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';
import { RecordingLogger } from '../testing/esdb-recording-logger.js';

/** The adapter against the in-process gRPC stand-in, backed by a fresh embedded SQLite store. */
function standInHarness(options: { batchAppend: boolean }): EventStoreHarness {
  const dataDir = mkdtempSync(join(tmpdir(), 'es-esdb-stand-in-'));
  let backing: EventStore | undefined;
  let standIn: EventStoreDbStandIn | undefined;
  const connect = () => EventStoreDbEventStore.connect({ connectionString: standIn!.connectionString, logger: new RecordingLogger() });
  return {
    openFresh: async () => {
      backing = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 200 });
      standIn = await startEventStoreDbStandIn(backing, options);
      return connect();
    },
    restart: async (store) => {
      await store.close();
      return connect();
    },
    dispose: async () => {
      await standIn?.close();
      await backing?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeEventStoreContract('EventStoreDB adapter via the gRPC stand-in (unary Append)', () => standInHarness({ batchAppend: false }));
describeEventStoreContract('EventStoreDB adapter via the gRPC stand-in (BatchAppend)', () => standInHarness({ batchAppend: true }));
describeEventTypeFilterContract('EventStoreDB adapter via the gRPC stand-in', () => standInHarness({ batchAppend: true }));
describeExpireStreamsContract('EventStoreDB adapter via the gRPC stand-in', () => standInHarness({ batchAppend: true }));

const realServer = process.env['EVENTSTORE_CONNECTION_STRING'];
const skipped = (name: string) => describe.skip(name, () => it('needs a server', () => undefined));

for (const describeRealServer of realServer ? [describeEventStoreContract, describeEventTypeFilterContract, describeExpireStreamsContract] : [skipped]) describeRealServer(
  realServer ? 'EventStoreDB adapter against a real server (EVENTSTORE_CONNECTION_STRING)' : 'EventStoreDB adapter against a real server — skipped: set EVENTSTORE_CONNECTION_STRING',
  () => ({
    openFresh: () => EventStoreDbEventStore.connect({ connectionString: realServer!, logger: new RecordingLogger() }),
    restart: async (store: EventStore) => {
      await store.close();
      return EventStoreDbEventStore.connect({ connectionString: realServer!, logger: new RecordingLogger() });
    },
    dispose: async () => undefined,
  }),
);
