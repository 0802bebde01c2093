import type { CheckedFilter } from '../port/all-filter.js';
import type { RecordedEvent } from '../port/event-store.js';
import type { AppendSignal } from './append-signal.js';
import { PAGE_SIZE, type EventQueries } from './event-queries.js';
import { filterWants, sharedRecordedEvent, type RecentEvents, type RecentFilter, type RecentRow } from './recent-events.js';
import { decodeFrozen } from './stored-record.js';

/**
 * Events a subscription delivers before it gives the event loop a turn: a page is handed over as one
 * chain of microtasks, and seven subscribers working through 2,000 events each held requests up for
 * 100 ms and more during a large cascade.
 */
const EVENTS_PER_TURN = 256;
const nextTurn = (): Promise<void> => new Promise((resume) => setImmediate(resume));

/** What a live subscription of the embedded store reads from. */
export interface FollowedStore {
  readonly recent: RecentEvents;
  readonly queries: EventQueries;
  readonly appended: AppendSignal<RecentRow>;
  readonly pollMs: number;
  /** Until what is committed is durable (ADR 0026). */
  readonly durable: () => Promise<void> | undefined;
  readonly isClosed: () => boolean;
}

/**
 * Live subscriptions read the tail from `recent` (decoded once, shared by every subscriber) and fall
 * back to SQLite pages when they are further behind. Either way the events are frozen, so a consumer
 * behaves the same whether it is catching up or live.
 */
export async function* followStore(store: FollowedStore, after: bigint, filter: CheckedFilter, closed: AbortSignal): AsyncGenerator<RecordedEvent> {
  const recentFilter: RecentFilter = {
    categories: filter.categories === undefined ? undefined : new Set(filter.categories),
    types: filter.types === undefined ? undefined : new Set(filter.types),
  };
  // Woken only by commits with a row this subscription wants (AppendSignal), by the same test as the page below.
  const wants = recentFilter.categories === undefined && recentFilter.types === undefined ? undefined : (row: RecentRow) => filterWants(recentFilter, row);
  while (!closed.aborted && !store.isClosed()) {
    const recent = store.recent.page(after, recentFilter, PAGE_SIZE);
    let count: number;
    if (recent !== undefined) {
      count = recent.rows.length;
      for (const [index, row] of recent.rows.entries()) {
        if (closed.aborted) return;
        if (index > 0 && index % EVENTS_PER_TURN === 0) await nextTurn();
        yield sharedRecordedEvent(row);
        after = row.position;
      }
      // Rows the filter does not want were looked at: never again (a consumer that resumes from its own
      // checkpoint re-reads them from SQLite, which is correct, only slower).
      if (recent.scannedTo > after) after = recent.scannedTo;
    } else {
      await store.durable();
      const rows = store.queries.readPage(after, filter, PAGE_SIZE);
      count = rows.length;
      for (const [index, [position, streamName, revision, record]] of rows.entries()) {
        if (closed.aborted) return;
        if (index > 0 && index % EVENTS_PER_TURN === 0) await nextTurn();
        yield decodeFrozen(position, streamName, revision, record);
        after = position;
      }
    }
    if (count === 0) await store.appended.next(store.pollMs, closed, wants);
    else if (count === PAGE_SIZE) await nextTurn();
  }
}
