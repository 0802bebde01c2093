import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore } from '@mission/event-store';
import { metadataFor, type CommandContext } from '@mission/es-kit';
import { childEvidenceStreamName, type ChildCreationDeniedData, type ChildEvidence } from '@mission/issuer-domain';
import { TemporarilyUnavailableError } from '@mission/issuer-oauth';

const WRITE_ATTEMPTS = 3;

/**
 * Spec 2.6, 6 rule 2: a `denied` Child Evidence record on `evidence-<parent mission_id>`. A refusal is never
 * answered without its record: the write is retried, and if the store still refuses it the caller gets 503
 * (the request can be repeated; it is refused again and recorded then) instead of a refusal nobody can audit.
 */
export async function appendDeniedEvidence(store: EventStore, parentMissionId: string, evidence: ChildEvidence, context: CommandContext): Promise<void> {
  const data: ChildCreationDeniedData = { parent_mission_id: parentMissionId, evidence };
  const metadata = metadataFor(context);
  for (let attempt = 1; ; attempt++) {
    try {
      await store.appendToStream(childEvidenceStreamName(parentMissionId), [{ type: 'ChildCreationDenied', data: data as never, metadata: metadata as never }]);
      return;
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS) {
        throw new TemporarilyUnavailableError('the refusal could not be recorded as evidence; retry the request', { cause: error });
      }
      await sleep(25 * attempt);
    }
  }
}
