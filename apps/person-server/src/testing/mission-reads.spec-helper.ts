import type { EventStore, ReadStreamOptions } from '@mission/event-store';

/** How many events of `psmission-…` streams the store has handed out since the last `reset` (its `readStream` is wrapped). */
export interface MissionEventsRead {
  readonly count: number;
  reset(): void;
}

/** Wraps the store's `readStream` so a test can see what a mission log reads back. */
export function countMissionEventsRead(store: EventStore): MissionEventsRead {
  let count = 0;
  const readStream = store.readStream.bind(store);
  store.readStream = (name: string, options?: ReadStreamOptions) => {
    const events = readStream(name, options);
    if (!name.startsWith('psmission-')) return events;
    return (async function* counted() {
      for await (const event of events) {
        count++;
        yield event;
      }
    })();
  };
  return {
    get count() {
      return count;
    },
    reset: () => (count = 0),
  };
}
