import { EventStoreUnavailableError, StreamDeletedError, streamName, WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '@mission/event-store';
import type { ExpiringRecords } from '@mission/es-kit';

/** Stream category of signature claims: `pssig-<signature identity>` (one stream, one event per accepted signature). */
export const SIGNATURE_CLAIM_CATEGORY = 'pssig';
/** The one event of a `pssig-…` stream. */
export const SIGNATURE_USED = 'SignatureUsed';

export function signatureClaimStreamName(identity: string): string {
  return streamName(SIGNATURE_CLAIM_CATEGORY, identity);
}

/** The event store could not record the claim: the request cannot be checked for replay (fail closed). */
export class SignatureClaimUnavailableError extends Error {
  override readonly name = 'SignatureClaimUnavailableError';
}

/**
 * Spec 5.6, DESIGN 3.2, issue 12 defect 8: the replay check shared by every replica and kept across restarts.
 * A signature is claimed by appending `SignatureUsed` to `pssig-<identity>` with expected revision
 * `no_stream`: the store lets exactly one append create the stream, whichever replica sends it, so a
 * signature captured within its window is accepted once across all replicas on one store and after a restart.
 *
 * The identity hashes the signature value (never stored itself); the signature base covers `created`, so an
 * identity can never become valid again once its window has closed, and a stream that exists always means a
 * replay. The event records when the window closes (`valid_until`: the first instant `createdWithinWindow`
 * refuses the signature on its own), from which on the claim may be swept (ADR 0057, {@link SIGNATURE_CLAIM_RECORDS}).
 */
export class StoredSignatureClaims {
  constructor(private readonly store: EventStore) {}

  /** `first_use` when this call created the claim, `replayed` when any replica (or an earlier run) did. */
  async claim(identity: string, validUntil: Date, now: Date): Promise<'first_use' | 'replayed'> {
    try {
      await this.store.appendToStream(
        signatureClaimStreamName(identity),
        [{ type: SIGNATURE_USED, data: { valid_until: validUntil.toISOString() }, metadata: { occurred_at: now.toISOString() } }],
        // Decided at commit; on disk before the request's answer leaves (the HTTP layer waits for whenDurable, ADR 0067).
        { expectedRevision: 'no_stream', acknowledge: 'committed' },
      );
      return 'first_use';
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError || error instanceof StreamDeletedError) return 'replayed';
      if (error instanceof EventStoreUnavailableError) throw new SignatureClaimUnavailableError('the signature claim could not be recorded', { cause: error });
      throw error;
    }
  }
}

/** The signature claims as the sweeper of expired records sees them (ADR 0057). */
export const SIGNATURE_CLAIM_RECORDS: ExpiringRecords = {
  name: 'ps_signature_claims',
  categories: [SIGNATURE_CLAIM_CATEGORY],
  eventTypes: [SIGNATURE_USED],
  expiresAt(event: RecordedEvent): Date | undefined {
    const text = event.data['valid_until'];
    if (typeof text !== 'string') return undefined;
    const at = new Date(text);
    return Number.isNaN(at.getTime()) ? undefined : at;
  },
};
