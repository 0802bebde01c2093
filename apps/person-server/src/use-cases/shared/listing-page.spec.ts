import fc from 'fast-check';
import { batchedEntries, fillPage } from './listing-page.js';

/** A listing's index entry, as the missions listing's (ADR 0087) or the pending proposals' (ADR 0088). */
interface MissionIndexEntry {
  readonly missionS256: string;
  readonly agent: string;
  readonly tenant: string;
  readonly approvedAt: string;
}

const entries = (count: number): MissionIndexEntry[] =>
  Array.from({ length: count }, (_, i) => ({ missionS256: String(i).padStart(43, '0'), agent: 'a', tenant: 't', approvedAt: '2026-11-27T10:00:00.000Z' }));

/** Every page from the start, each going on after the previous page's last examined entry; bounded. */
async function allPages(all: MissionIndexEntry[], pageSize: number, maxExamined: number, shown: (entry: MissionIndexEntry) => boolean) {
  const pages: Array<{ items: readonly MissionIndexEntry[]; examined: number }> = [];
  for (let from = 0; pages.length <= all.length + 1; ) {
    let examined = 0;
    const page = await fillPage(all.slice(from), { pageSize, maxExamined }, async (entry) => {
      examined += 1;
      return shown(entry) ? entry : undefined;
    });
    pages.push({ items: page.items, examined });
    if (page.complete) break;
    from = all.indexOf(page.last!) + 1;
  }
  return pages;
}

describe('fillPage (ADR 0087: a listing page examines at most maxExamined entries)', () => {
  it('a filter that matches none of 2,500 missions: pages of nothing, each examining 1,000 at most, the last complete', async () => {
    const pages = await allPages(entries(2_500), 50, 1_000, () => false);
    expect(pages.map((page) => [page.items.length, page.examined])).toEqual([[0, 1_000], [0, 1_000], [0, 500]]);
  });

  it('a full page stops at the first candidate it cannot hold, and is not complete', async () => {
    const page = await fillPage(entries(3), { pageSize: 2, maxExamined: 1_000 }, async (entry) => entry);
    expect([page.items.length, page.complete, page.last]).toEqual([2, false, entries(3)[1]]);
    expect(await fillPage(entries(2), { pageSize: 2, maxExamined: 1_000 }, async (entry) => entry)).toMatchObject({ complete: true });
  });

  it('over the pages every candidate is examined exactly once and every shown one listed once, in order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 120 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 25 }), fc.func(fc.boolean()), async (count, pageSize, maxExamined, shown) => {
        const all = entries(count);
        const pages = await allPages(all, pageSize, maxExamined, (entry) => shown(entry.missionS256));
        expect(pages.flatMap((page) => page.items)).toEqual(all.filter((entry) => shown(entry.missionS256)));
        expect(pages.reduce((sum, page) => sum + page.examined, 0)).toBe(count);
        for (const page of pages) expect(page.items.length <= pageSize && page.examined <= maxExamined).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('batchedEntries (ADR 0087, 0088: a listing reads its model a batch at a time)', () => {
  it('goes on after the last entry of each batch until a batch comes back short: every entry after the cursor once, in order', () => {
    const all = Array.from({ length: 450 }, (_, i) => i);
    const reads: Array<[number | undefined, number]> = [];
    const page = (after: number | undefined, limit: number): number[] => {
      reads.push([after, limit]);
      return all.filter((n) => after === undefined || n > after).slice(0, limit);
    };
    expect([...batchedEntries(page, undefined)]).toEqual(all);
    expect(reads).toEqual([[undefined, 200], [199, 200], [399, 200]]);
    expect([...batchedEntries(page, 99)]).toEqual(all.slice(100));
  });

  it('reads no further batch than the page consumes', () => {
    let reads = 0;
    const entries = batchedEntries((after: number | undefined, limit) => (reads++, Array.from({ length: limit }, (_, i) => (after ?? -1) + 1 + i)), undefined);
    for (const n of entries) if (n === 5) break;
    expect(reads).toBe(1);
  });
});

