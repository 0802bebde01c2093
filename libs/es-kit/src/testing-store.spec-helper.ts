import { MAX_STREAMS_PER_APPEND, type EventStore, type JsonObject } from '@mission/event-store';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import type { CommandContext } from './event-metadata.js';

/** A real embedded store in a temp dir, reopenable to simulate a restart. */
export function tempStore(): Promise<TempEmbeddedStore> {
  return openTempEmbeddedStore('es-kit-');
}

export const context = (now = new Date('2026-11-22T10:00:00Z')): CommandContext => ({
  correlationId: 'corr-1',
  causationId: 'req-1',
  actor: { id: 'alice', role: 'person' },
  now,
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** A gate a test opens when it is ready; everything waiting on it resumes then. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}

/** The store with some members replaced (a Proxy, so the store's own methods keep their `this`). */
export function storeWith(store: EventStore, replaced: Partial<EventStore>): EventStore {
  return new Proxy(store, {
    get: (target, member: keyof EventStore) => {
      if (member in replaced) return replaced[member];
      const value = target[member];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `count` one-event streams in stream order, appended `MAX_STREAMS_PER_APPEND` at a time: one commit each, so that
 * seeding a backlog does not cost an fsync per stream.
 */
export async function appendOnePerStream(store: EventStore, count: number, event: (i: number) => { streamName: string; type: string; data: JsonObject }): Promise<void> {
  for (let start = 0; start < count; start += MAX_STREAMS_PER_APPEND) {
    const appends = Array.from({ length: Math.min(MAX_STREAMS_PER_APPEND, count - start) }, (_, offset) => {
      const { streamName, type, data } = event(start + offset);
      return { streamName, events: [{ type, data }] };
    });
    await store.appendToStreams(appends);
  }
}
