import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventStore, type RecordedEvent } from '@mission/event-store';
import { collect } from '@mission/event-store/testing';
import { eventHash } from '@mission/es-kit';
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
    const reader = openEmbeddedReader(dataDir, { paging, readerThread: false });
    try {
      const events = await collect(reader.readAll());
      expect(events).toHaveLength(40);
      const pages = await collect(reader.readAllPages());
      expect(pages.every((page) => page.events.length > 0 && page.events.length <= paging.decoded)).toBe(true);
      expect(pages.flatMap((page) => page.events).map(plain)).toEqual(events);
      const after = events[16]!.position;
      expect((await collect(reader.readAllPages(after))).flatMap((page) => page.events).map(plain)).toEqual(events.slice(17));
      expect(await collect(reader.readAllPages(events[39]!.position))).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('ADR 0037: the reader thread yields the same events, each with its eventHash, and honours after', async () => {
    const reader = openEmbeddedReader(dataDir, { paging: { rows: 7, decoded: 3, threadRows: 3 }, readerThread: READER_THREAD });
    try {
      const events = await collect(reader.readAll());
      const pages = await collect(reader.readAllPages());
      expect(pages.every((page) => page.events.length > 0 && page.events.length <= 3)).toBe(true);
      expect(pages.flatMap((page) => page.events).map(plain)).toEqual(events);
      expect(pages.flatMap((page) => page.hashes!)).toEqual(events.map((event) => eventHash(event)));
      expect((await collect(reader.readAllPages(events[16]!.position))).flatMap((page) => page.events).map(plain)).toEqual(events.slice(17));
      expect(await collect(reader.readAllPages(events[39]!.position))).toEqual([]);
    } finally {
      await reader.close();
    }
  });
});

/** The built thread (worker threads run plain Node): `npm test` builds before jest. */
const READER_THREAD = new URL('../../dist/source/reader-thread.js', import.meta.url);

/** A lazily parsed event as the plain object readAll gives. */
function plain(event: RecordedEvent): RecordedEvent {
  const { streamName, revision, position, id, type, created, metadata, data } = event;
  return { streamName, revision, position, id, type, created, metadata, data };
}
