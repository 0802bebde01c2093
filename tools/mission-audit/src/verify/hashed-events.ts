import { eventHash } from '@mission/es-kit';
import type { RecordedEvent } from '@mission/event-store';
import type { AuditSource } from '../source/audit-source.js';

/**
 * Every event of the global order with its `eventHash`, in order: the hash the source computed from the stored
 * bytes while reading (the embedded store, ADR 0037), or computed here from the event's values.
 */
export async function forEachHashedEvent(source: AuditSource, visit: (event: RecordedEvent, hash: string) => void): Promise<void> {
  for await (const page of source.readAllPages()) {
    const { events, hashes } = page;
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!;
      visit(event, hashes?.[index] ?? eventHash(event));
    }
  }
}
