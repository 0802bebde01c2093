import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore } from './open-event-store.js';
import { openEsdbRig, type EsdbRig } from './testing/esdb-rig.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('openEventStore (DESIGN 5; the EventStoreDB adapter is loaded only when configured, issue 15 item 6)', () => {
  let rig: EsdbRig;
  let dataDir: string;
  beforeAll(async () => {
    rig = await openEsdbRig();
    dataDir = mkdtempSync(join(tmpdir(), 'open-event-store-'));
  });
  afterAll(async () => {
    await rig.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens EventStoreDB for an esdb:// connection string, and what it appends reads back', async () => {
    const store = await openEventStore({ connectionString: rig.standIn.connectionString, dataDir, logger: quiet });
    try {
      expect(store.kind).toBe('eventstoredb');
      await store.appendToStream('mission-open1', [{ type: 'MissionCreated', data: { n: 1 } }]);
      const read = [];
      for await (const event of store.readStream('mission-open1')) read.push(event.type);
      expect(read).toEqual(['MissionCreated']);
    } finally {
      await store.close();
    }
  });

  it('opens the embedded store without a connection string', async () => {
    const store = await openEventStore({ connectionString: '  ', dataDir, logger: quiet });
    try {
      expect(store.kind).toBe('embedded');
    } finally {
      await store.close();
    }
  });
});
