import type { EventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { childEvidenceStreamName, type ChildCreationDeniedData, type ChildEvidence } from '@mission/issuer-domain';

/** Test helper: the `denied` Child Evidence records on `evidence-<parent mission_id>`, in order (spec 2.6). */
export async function deniedEvidenceOf(store: EventStore, parentMissionId: string): Promise<ChildEvidence[]> {
  const events = await collect(store.readStream(childEvidenceStreamName(parentMissionId)));
  return events.map((event) => (event.data as unknown as ChildCreationDeniedData).evidence);
}
