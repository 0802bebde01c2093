/**
 * TEST SUPPORT ONLY: the per-describe EventStoreDB rig of the adapter's wire-level specs
 * (`eventstoredb/eventstoredb-wire.*.spec.ts`), and the requests the gRPC stand-in recorded, narrowed for them.
 */
import type { EventStoreDbOptions } from '../eventstoredb/eventstoredb-event-store.js';
import type { EventStoreDbStandInOptions, StandInRequest } from './esdb-grpc-stand-in.js';
import type { WriteRequestRecord } from './esdb-stand-in-write.js';
import { openEsdbRig, type EsdbRig } from './esdb-rig.js';

/**
 * Opens a rig with `options` before the tests of the calling `describe` and disposes of it after them. The rig it
 * returns stands for the one opened in `beforeAll`: use it inside tests only.
 */
export function useEsdbRig(options: EventStoreDbStandInOptions = {}): EsdbRig {
  let rig: EsdbRig | undefined;
  beforeAll(async () => {
    rig = await openEsdbRig(options);
  });
  afterAll(() => rig?.dispose());
  const opened = (): EsdbRig => {
    if (rig === undefined) throw new Error('the rig opens in beforeAll: use it inside tests only');
    return rig;
  };
  return {
    get backing() {
      return opened().backing;
    },
    get standIn() {
      return opened().standIn;
    },
    get store() {
      return opened().store;
    },
    get logger() {
      return opened().logger;
    },
    connect: (extra?: Partial<EventStoreDbOptions>) => opened().connect(extra),
    restartServer: (restart?: { downForMs?: number }) => opened().restartServer(restart),
    dispose: () => opened().dispose(),
  };
}

/** The write requests (append, batchAppend, tombstone, delete) the stand-in received for `streamName`, in order. */
export const writesTo = (requests: readonly StandInRequest[], streamName: string): WriteRequestRecord[] =>
  requests.filter((r): r is WriteRequestRecord => r.method !== 'read' && r.streamName === streamName);
