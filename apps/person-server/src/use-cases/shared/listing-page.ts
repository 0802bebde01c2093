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
