import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from '../embedded/embedded-event-store.js';

export interface TempEmbeddedStore {
  store: EmbeddedEventStore;
  /** Closes the store and opens it again over the same file: a service restart. */
  restart(): Promise<EmbeddedEventStore>;
  dispose(): Promise<void>;
}

/** A real embedded store in a fresh temp dir, for tests of code built on the store. */
export async function openTempEmbeddedStore(prefix = 'store-'): Promise<TempEmbeddedStore> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const handle: TempEmbeddedStore = {
    store: await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 50 }),
    async restart() {
      await handle.store.close();
      handle.store = await EmbeddedEventStore.open({ dataDir, subscriptionPollMs: 50 });
      return handle.store;
    },
    async dispose() {
      await handle.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}
