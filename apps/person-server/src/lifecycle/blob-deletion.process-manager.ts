import { StreamDeletedError, type EventStore, type RecordedEvent } from '@mission/event-store';
import type { ProcessManager } from '@mission/es-kit';
import { blobStreamName, MISSION_STREAM_CATEGORY, type MissionBlobDeletedData } from '@mission/ps-domain';

/** Hard-deletes `psblob-<s256>`; a stream already deleted counts as done (idempotent). */
export async function deleteBlobStream(store: EventStore, s256: string): Promise<void> {
  try {
    await store.tombstoneStream(blobStreamName(s256));
  } catch (error) {
    if (!(error instanceof StreamDeletedError)) throw error;
  }
}

/**
 * Spec 3 rule 5: `MissionBlobDeleted` on `psmission-<s256>` is the commit point of a body deletion;
 * the hard delete of `psblob-<s256>` follows. The operation does it at once; this process manager
 * finishes it durably when the service stopped between the two (at-least-once, idempotent).
 */
export function blobDeletionManager(store: EventStore): ProcessManager {
  return {
    name: 'ps_blob_deletion',
    triggers: [MISSION_STREAM_CATEGORY],
    plan: (event: RecordedEvent) => {
      if (event.type !== 'MissionBlobDeleted') return [];
      const data = event.data as unknown as MissionBlobDeletedData;
      return [{ key: data.mission_s256, dueAt: new Date(data.occurred_at), payload: { mission_s256: data.mission_s256 } }];
    },
    perform: async (work) => {
      await deleteBlobStream(store, String(work.payload['mission_s256']));
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000 },
  };
}
