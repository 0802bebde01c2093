import type { AllFilter, EventStore, Position } from '@mission/event-store';

/**
 * A process manager's backlog: events not yet taken in, counted up to `bound + 1` — trigger events not yet
 * planned plus work events not yet in the index of open work (readiness: a replica further behind than
 * `bound` is not ready, e.g. while it replays a long history after a restart). Reads only the filtered
 * indexes, so it stays cheap however many other events the trigger categories hold; stops counting at the bound.
 */
export async function countBacklog(store: EventStore, bound: number, readers: ReadonlyArray<{ readonly after: Position | undefined; readonly filter: AllFilter }>): Promise<number> {
  let count = 0;
  for (const { after, filter } of readers) {
    if (count > bound) break;
    for await (const event of store.readAll({ ...(after ? { after } : {}), maxCount: bound + 1 - count, filter })) count += event ? 1 : 0;
  }
  return count;
}
