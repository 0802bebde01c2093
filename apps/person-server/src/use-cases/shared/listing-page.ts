export interface FilledPage<E, T> {
  readonly items: readonly T[];
  /** No candidate is left after this page. */
  readonly complete: boolean;
  /** The last candidate examined: where the next page starts when this one is not complete. */
  readonly last?: E;
}

/**
 * One page of a listing (ADR 0034, 0040, 0087): candidates in the listing's order, each turned into an item by `itemOf`
 * (undefined: not shown, e.g. filtered out by status) until the page holds `pageSize` items or `maxExamined`
 * candidates were examined. A page that stops early is not complete and names its last examined candidate, so the
 * next page goes on from there: every candidate is examined exactly once over the pages, and no request examines more
 * than `maxExamined`, whatever the filter.
 */
export async function fillPage<E, T>(
  candidates: Iterable<E>,
  limits: { readonly pageSize: number; readonly maxExamined: number },
  itemOf: (entry: E) => Promise<T | undefined>,
): Promise<FilledPage<E, T>> {
  const items: T[] = [];
  let last: E | undefined;
  let examined = 0;
  for (const entry of candidates) {
    if (items.length === limits.pageSize || examined === limits.maxExamined) return { items, complete: false, last };
    last = entry;
    examined += 1;
    const item = await itemOf(entry);
    if (item !== undefined) items.push(item);
  }
  return { items, complete: true, last };
}

/**
 * Entries one listing page examines at most (ADR 0087, 0088). A filter that matches few of many entries ends the page
 * early, with fewer items and a cursor, instead of reading every entry in one request.
 */
export const MAX_EXAMINED_PER_PAGE = 1_000;
/** Model entries read at a time while a page is filled. */
const SCAN_BATCH = 200;

/** Every entry strictly after `after`, in the listing's order, read from `page` a batch at a time as the page asks. */
export function* batchedEntries<C, E extends C>(page: (after: C | undefined, limit: number) => readonly E[], after: C | undefined): Generator<E> {
  for (let from = after; ; ) {
    const batch = page(from, SCAN_BATCH);
    yield* batch;
    if (batch.length < SCAN_BATCH) return;
    from = batch[batch.length - 1];
  }
}

/**
 * The first `limit` entries, in order, of the ranges read for each of `keys` (a caller's agents): each range is at most
 * `limit` long and already in order, so a page costs the same however large the model is.
 */
export function mergedRanges<E>(keys: Iterable<string>, range: (key: string) => readonly E[], compare: (a: E, b: E) => number, limit: number): E[] {
  const entries: E[] = [];
  for (const key of new Set(keys)) entries.push(...range(key));
  return entries.sort(compare).slice(0, limit);
}
