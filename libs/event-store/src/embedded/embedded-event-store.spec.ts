import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { describeEventStoreContract } from '../testing/contract/event-store.contract.js';
import { describeEventTypeFilterContract } from '../testing/contract/event-type-filter.contract.js';
import { describeExpireStreamsContract } from '../testing/contract/expire-streams.contract.js';

for (const describeContract of [describeEventStoreContract, describeEventTypeFilterContract, describeExpireStreamsContract]) describeContract('embedded SQLite', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'es-embedded-'));
  return {
    openFresh: () => EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 200 }),
    restart: async (store) => {
      await store.close();
      return EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 200 });
    },
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
});
