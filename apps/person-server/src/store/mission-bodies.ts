import { Inject, Injectable } from '@nestjs/common';
import { metadataFor, type CommandContext } from '@mission/es-kit';
import { StreamDeletedError, WrongExpectedRevisionError, type EventStore, type JsonObject } from '@mission/event-store';
import { EVENT_STORE } from '@mission/platform';
import {
  blobStreamName,
  encodeMissionBlob,
  InvalidCommandError,
  proposalBodyStreamName,
  proposalContentEvent,
  proposalFromContentEvent,
  type MissionProposal,
} from '@mission/ps-domain';

/** DESIGN 1: the one event of `psblob-<s256>`: the exact blob bytes, base64url (never in the mission log). */
export const MISSION_BLOB_STORED = 'MissionBlobStored';

/**
 * The two deletable streams that hold a mission body's content (spec 3 rule 5, 1 item 7; ADR 0019): the
 * proposal's content on `psproposalbody-<pending_id>` until approval, then the exact blob bytes on
 * `psblob-<s256>`. No other stream holds description, tools or resources, so deleting these deletes the
 * content.
 */
@Injectable()
export class MissionBodies {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async recordProposalContent(pendingId: string, proposal: MissionProposal, context: CommandContext): Promise<void> {
    const event = proposalContentEvent(pendingId, proposal);
    await this.store.appendToStream(proposalBodyStreamName(pendingId), [{ type: event.type, data: event.data as unknown as JsonObject, metadata: metadataOf(context) }], { expectedRevision: 'no_stream' });
  }

  /** The proposal's content, or undefined once it was deleted (after approval it lives in `psblob-<s256>`). */
  async proposalContent(pendingId: string): Promise<MissionProposal | undefined> {
    try {
      for await (const event of this.store.readStream(proposalBodyStreamName(pendingId), { maxCount: 1 })) return proposalFromContentEvent(event);
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
    return undefined;
  }

  /** Idempotent: a stream already deleted (or never written) counts as done. */
  async deleteProposalContent(pendingId: string): Promise<void> {
    await tombstone(this.store, proposalBodyStreamName(pendingId));
  }

  /** Stores the blob on `psblob-<s256>` (or finds the same bytes there); false when the stream was deleted (spec 3 rule 5). */
  async storeBlob(s256: string, bytes: Uint8Array, context: CommandContext): Promise<boolean> {
    const event = { type: MISSION_BLOB_STORED, data: { mission_s256: s256, blob: encodeMissionBlob(bytes) }, metadata: metadataOf(context) };
    try {
      await this.store.appendToStream(blobStreamName(s256), [event], { expectedRevision: 'no_stream' });
    } catch (error) {
      if (error instanceof StreamDeletedError) return false;
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const stored = await this.blob(s256);
      if (stored === 'deleted') return false;
      if (stored === undefined || !Buffer.from(stored).equals(Buffer.from(bytes))) throw new InvalidCommandError('psblob holds other bytes than the approved blob');
    }
    return true;
  }

  /** The stored blob bytes, `deleted` once the body was deleted, or undefined when none was stored yet. */
  async blob(s256: string): Promise<Uint8Array | 'deleted' | undefined> {
    try {
      for await (const event of this.store.readStream(blobStreamName(s256), { maxCount: 1 })) {
        if (event.type === MISSION_BLOB_STORED && typeof event.data['blob'] === 'string') return new Uint8Array(Buffer.from(event.data['blob'], 'base64url'));
      }
    } catch (error) {
      if (error instanceof StreamDeletedError) return 'deleted';
      throw error;
    }
    return undefined;
  }
}

/** Hard-deletes `stream`; already deleted counts as done. */
export async function tombstone(store: EventStore, stream: string): Promise<void> {
  try {
    await store.tombstoneStream(stream);
  } catch (error) {
    if (!(error instanceof StreamDeletedError)) throw error;
  }
}

function metadataOf(context: CommandContext): JsonObject {
  return metadataFor(context);
}
