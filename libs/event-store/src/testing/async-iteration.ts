import type { RecordedEvent } from '../port/event-store.js';

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** The next `count` items of a live subscription, failing after `timeoutMs` instead of hanging. */
export async function take(source: AsyncIterable<RecordedEvent> | AsyncIterator<RecordedEvent>, count: number, timeoutMs = 10_000): Promise<RecordedEvent[]> {
  const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source;
  const items: RecordedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (items.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now())))),
    ]).finally(() => clearTimeout(timer));
    if (next === 'timeout') throw new Error(`received ${items.length} of ${count} events within ${timeoutMs} ms`);
    if (next.done) throw new Error(`iteration ended after ${items.length} of ${count} events`);
    items.push(next.value);
  }
  return items;
}
