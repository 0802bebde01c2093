import type { EsdbClient } from './esdb-client.js';
import { toPortError } from './esdb-errors.js';
import { StreamDeletedError } from '../port/errors.js';

/**
 * `expireStreams` on EventStoreDB (ADR 0057): a soft delete per stream — the events become unreadable at once
 * and go at the next scavenge, and the name may be written again (only ever used for records whose protection
 * has ended by time). A tombstoned stream stays tombstoned: its StreamDeleted answer is skipped, like an absent one.
 */
export async function softDeleteStreams(client: EsdbClient, streamNames: readonly string[]): Promise<void> {
  for (const streamName of new Set(streamNames)) {
    try {
      await client.deleteStream(streamName, { expectedRevision: 'any' });
    } catch (error) {
      const portError = toPortError(error, { operation: 'expire', streamName });
      if (portError instanceof StreamDeletedError) continue;
      throw portError;
    }
  }
}
