import { StreamDeletedError, type EventStore, type JsonObject, type RecordedEvent } from '@mission/event-store';
import type { ProcessManager } from '@mission/es-kit';
import { blobStreamName, MISSION_STREAM_CATEGORY, type MissionBlobDeletedData } from '@mission/ps-domain';

/**
 * Hard-deletes `psblob-<s256>` and, when the mission names it, the proposal's content stream
 * `psproposalbody-<pending_id>` (normally gone since the approval completed; spec 3 rule 5, ADR 0019). A
 * stream already deleted counts as done (idempotent).
 */
export async function deleteBlobStream(store: EventStore, s256: string, proposalBodyStream?: string): Promise<void> {
  for (const stream of [blobStreamName(s256), ...(proposalBodyStream !== undefined ? [proposalBodyStream] : [])]) {
    try {
      await store.tombstoneStream(stream);
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
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
    // Only the event plan acts on: the mission streams are mostly logged reads (spec 6), never read here (ADR 0055).
    triggerTypes: ['MissionBlobDeleted'],
    plan: (event: RecordedEvent) => {
      if (event.type !== 'MissionBlobDeleted') return [];
      const data = event.data as unknown as MissionBlobDeletedData;
      const payload: JsonObject = { mission_s256: data.mission_s256 };
      if (data.proposal_body_stream !== undefined) payload['proposal_body_stream'] = data.proposal_body_stream;
      return [{ key: data.mission_s256, dueAt: new Date(data.occurred_at), payload }];
    },
    perform: async (work) => {
      const body = work.payload['proposal_body_stream'];
      await deleteBlobStream(store, String(work.payload['mission_s256']), typeof body === 'string' ? body : undefined);
    },
    retry: { maxAttempts: 20, initialDelayMs: 1000, maxDelayMs: 60_000, leaseMs: 30_000 },
  };
}
