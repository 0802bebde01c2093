import fc from 'fast-check';
import type { ReadStreamOptions, RecordedEvent } from '../port/event-store.js';
import { collect } from '../testing/async-iteration.js';
import { openTempEmbeddedStore, type TempEmbeddedStore } from '../testing/temp-embedded-store.js';
import { PAGE_SIZE, limitSql } from './event-queries.js';

/**
 * ADR 0077: a page's LIMIT is written into the SQL when it is a whole page or a single event, and bound otherwise.
 * Whatever mix of the two a read needs — a first literal page and a bound last one, a bound page in a merged
 * (several-category) read — it returns exactly the events asked for, in order, on both kinds of read.
 */
describe('embedded store: literal and bound page limits (ADR 0077)', () => {
  const LENGTH = 2 * PAGE_SIZE + 37;
  const category = 'limits';
  const other = 'limitsb';
  let temp: TempEmbeddedStore;
  beforeAll(async () => {
    temp = await openTempEmbeddedStore('es-limits-');
    // Two streams in two categories, interleaved in global order, so a two-category read merges two index ranges.
    for (let start = 0; start < LENGTH; start += 500) {
      const count = Math.min(500, LENGTH - start);
      await temp.store.appendToStream(`${category}-a`, Array.from({ length: count }, (_, i) => ({ type: 'Counted', data: { n: start + i } })));
      await temp.store.appendToStream(`${other}-b`, Array.from({ length: count }, (_, i) => ({ type: 'Counted', data: { n: start + i } })));
    }
  });
  afterAll(async () => temp.dispose());

  const numbers = (events: readonly RecordedEvent[]) => events.map((event) => event.data['n'] as number);

  it('writes only a whole page and a single event into the SQL', () => {
    expect(limitSql(PAGE_SIZE)).toBe(`LIMIT ${PAGE_SIZE}`);
    expect(limitSql(1)).toBe('LIMIT 1');
    for (const bound of [0, 2, 7, PAGE_SIZE - 1, PAGE_SIZE + 1, 10_000]) expect(limitSql(bound)).toBe('LIMIT ?');
  });

  it.each([1, 2, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1, PAGE_SIZE + 2, 2 * PAGE_SIZE, 2 * PAGE_SIZE + 1, LENGTH + 5])(
    'reads a stream forwards and backwards with maxCount %i across literal and bound pages',
    async (maxCount) => {
      const forwards = numbers(await collect(temp.store.readStream(`${category}-a`, { maxCount })));
      expect(forwards).toEqual(Array.from({ length: Math.min(maxCount, LENGTH) }, (_, i) => i));
      const backwards = numbers(await collect(temp.store.readStream(`${category}-a`, { direction: 'backwards', maxCount })));
      expect(backwards).toEqual(Array.from({ length: Math.min(maxCount, LENGTH) }, (_, i) => LENGTH - 1 - i));
    },
  );

  it.each([1, 2, PAGE_SIZE, PAGE_SIZE + 1, PAGE_SIZE + 2])('reads all of one category and of two merged with maxCount %i', async (maxCount) => {
    expect(numbers(await collect(temp.store.readAll({ maxCount, filter: { streamCategories: [category] } })))).toEqual(Array.from({ length: maxCount }, (_, i) => i));
    const merged = await collect(temp.store.readAll({ maxCount, filter: { streamCategories: [category, other] } }));
    expect(merged).toHaveLength(maxCount);
    // Global order: positions strictly increase, and each stream's own events come in revision order.
    for (let i = 1; i < merged.length; i++) expect(merged[i]!.position.commit > merged[i - 1]!.position.commit).toBe(true);
    for (const name of [`${category}-a`, `${other}-b`]) {
      const mine = merged.filter((event) => event.streamName === name).map((event) => Number(event.revision));
      expect(mine).toEqual(Array.from({ length: mine.length }, (_, i) => i));
    }
  });

  it('returns the slice a read asks for, for any start, direction and count (property)', async () => {
    const all = Array.from({ length: LENGTH }, (_, i) => i);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: LENGTH + 2 }),
        fc.boolean(),
        fc.oneof(fc.constantFrom(1, PAGE_SIZE, PAGE_SIZE + 1), fc.integer({ min: 1, max: LENGTH + 2 })),
        async (from, backwards, maxCount) => {
          const options: ReadStreamOptions = { fromRevision: BigInt(from), maxCount, ...(backwards ? { direction: 'backwards' as const } : {}) };
          const expected = backwards ? all.slice(0, Math.min(from, LENGTH - 1) + 1).reverse().slice(0, maxCount) : all.slice(from, from + maxCount);
          expect(numbers(await collect(temp.store.readStream(`${category}-a`, options)))).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
