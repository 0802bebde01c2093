import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { openEmbeddedReader } from './embedded-reader.js';

describe('embedded reader: the global order in pages (verify reads a page per await)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-reader-'));
  beforeAll(async () => {
    const store = await EmbeddedEventStore.open({ dataDir });
    for (let batch = 0; batch < 5; batch++) {
      await store.appendToStreams([
        { streamName: `alpha-${batch}`, events: Array.from({ length: 7 }, (_, i) => ({ type: 'Counted', data: { batch, i } })) },
        { streamName: `beta-${batch}`, events: [{ type: 'Counted', data: { batch, i: -1 } }] },
      ]);
    }
    await store.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    { paging: { rows: 5_000, decoded: 256 }, what: 'one SQL page, one decoded page' },
    { paging: { rows: 7, decoded: 3 }, what: 'SQL pages and decoded pages that do not divide the store' },
    { paging: { rows: 4, decoded: 4 }, what: 'the store a multiple of both' },
  ])('yields exactly readAll, in order, never an empty page: $what', async ({ paging }) => {
    const reader = openEmbeddedReader(dataDir, 2_000, paging);
    try {
      const events = await collect(reader.readAll());
      expect(events).toHaveLength(40);
      const pages = await collect(reader.readAllPages());
      expect(pages.every((page) => page.events.length > 0 && page.events.length <= paging.decoded)).toBe(true);
      expect(pages.flatMap((page) => page.events)).toEqual(events);
      // The stored text beside each event is that event's record.
      for (const page of pages) page.events.forEach((event, index) => expect(JSON.parse(page.storedTexts![index]!)).toMatchObject({ id: event.id, data: event.data }));
      const after = events[16]!.position;
      expect((await collect(reader.readAllPages(after))).flatMap((page) => page.events)).toEqual(events.slice(17));
      expect(await collect(reader.readAllPages(events[39]!.position))).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});
