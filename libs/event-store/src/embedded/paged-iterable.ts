/**
 * An async iterable over pages fetched synchronously. Hand-written rather than an async generator:
 * a generator costs several promise turns per item, which dominated full reads of a million events.
 */
/**
 * `start` runs when iteration begins (so that validation and not-found errors reject the first `next()`,
 * as they would for a remote read) and returns the page source; an empty or undefined page ends it.
 */
/**
 * `ready`, when it gives a promise, is awaited before the first page (the embedded store: until what is
 * committed is durable, ADR 0026); undefined means "now", without a promise turn.
 */
export function pagedIterable<Row, Item>(
  start: () => () => Row[] | undefined,
  toItem: (row: Row) => Item,
  ready: () => Promise<void> | undefined = () => undefined,
): AsyncIterable<Item> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Item> {
      let nextPage: (() => Row[] | undefined) | undefined;
      let rows: Row[] = [];
      let index = 0;
      let finished = false;
      let waited = false;
      const iterator: AsyncIterator<Item> = {
        next(): Promise<IteratorResult<Item>> {
          if (!waited) {
            // Once: what was committed before the read began, not whatever keeps arriving meanwhile.
            waited = true;
            const waiting = ready();
            if (waiting !== undefined) return waiting.then(() => iterator.next());
          }
          try {
            while (index >= rows.length) {
              nextPage ??= start();
              const page = finished ? undefined : nextPage();
              if (!page || page.length === 0) {
                finished = true;
                return Promise.resolve({ done: true, value: undefined });
              }
              rows = page;
              index = 0;
            }
            return Promise.resolve({ done: false, value: toItem(rows[index++]!) });
          } catch (error) {
            finished = true;
            return Promise.reject(error);
          }
        },
        return(): Promise<IteratorResult<Item>> {
          finished = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
      return iterator;
    },
  };
}
