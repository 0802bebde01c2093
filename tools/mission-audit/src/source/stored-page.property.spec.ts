import fc from 'fast-check';
import { eventHash } from '@mission/es-kit';
import { canonicalJson, type JsonObject, type RecordedEvent } from '@mission/event-store';
import { storedPage, type StoredRow } from './stored-page.js';
import { decodeWholeRecord, eventPageOf } from './stored-record.js';

/** A record exactly as the embedded store writes it (libs/event-store, event-writes.ts). */
function storeRecord(id: string, type: string, created: number, metadata: JsonObject, data: JsonObject): string {
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"created":${created},"metadata":${canonicalJson(metadata)},"data":${canonicalJson(data)}}`;
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const jsonObject = fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) as fc.Arbitrary<JsonObject>;
const record = fc.record({
  id: text, type: text, created: fc.integer({ min: 0, max: 4_000_000_000_000 }), metadata: jsonObject, data: jsonObject,
  stream: text.map((name) => `mission-${name}`), revision: fc.bigInt({ min: 0n, max: 1_000_000n }),
});

/** Reads a one-row page the way verify does: cut and hashed, then each member parsed on access. */
function readBack(stream: string, revision: bigint, stored: string): { event: RecordedEvent; hash: string | undefined } {
  const row: StoredRow = [7n, stream, revision, stored];
  const page = eventPageOf(storedPage([row]));
  return { event: page.events[0]!, hash: page.hashes![0] };
}

/** Every member of the event, or the error its reading throws. */
function members(event: RecordedEvent): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: { id: event.id, type: event.type, created: event.created.getTime(), metadata: event.metadata, data: event.data } };
  } catch {
    return { ok: false };
  }
}

describe('stored records cut on their bytes (ADR 0037)', () => {
  it('issue 14: a record as the service writes it hashes to eventHash of its values, and reads back as them', () => {
    fc.assert(fc.property(record, ({ id, type, created, metadata, data, stream, revision }) => {
      fc.pre([id, type, stream].every((value) => (value as unknown as { isWellFormed(): boolean }).isWellFormed()));
      const { event, hash } = readBack(stream, revision, storeRecord(id, type, created, metadata, data));
      const values = JSON.parse(canonicalJson({ metadata, data })) as { metadata: JsonObject; data: JsonObject };
      expect(hash).toBe(eventHash({ streamName: stream, revision, type, ...values }));
      expect(members(event)).toEqual({ ok: true, value: { id, type, created, ...values } });
    }), { numRuns: 400 });
  });

  it('issue 14: after any edit of the text, the event reads exactly as JSON.parse of the whole record reads, or fails where it fails', () => {
    const structural = fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', ' ', '0', 'a', '"data":', ',"metadata":', '\u0001');
    const edit = fc.record({ at: fc.nat(), remove: fc.nat({ max: 3 }), insert: fc.oneof(structural, text) });
    fc.assert(fc.property(record, fc.array(edit, { minLength: 1, maxLength: 3 }), ({ id, type, created, metadata, data, stream, revision }, edits) => {
      let stored = storeRecord(id, type, created, metadata, data);
      for (const { at, remove, insert } of edits) {
        const place = at % (stored.length + 1);
        stored = stored.slice(0, place) + insert + stored.slice(place + remove);
      }
      // What SQLite gives back for this text: stored as UTF-8, so a surrogate cut in half comes back as U+FFFD.
      stored = Buffer.from(stored, 'utf8').toString('utf8');
      let read: ReturnType<typeof members>;
      try {
        read = members(readBack(stream, revision, stored).event);
      } catch {
        read = { ok: false }; // parsed whole while reading the page, and refused there
      }
      const row = { streamName: stream, revision, position: { commit: 7n, prepare: 7n } };
      let whole: RecordedEvent | undefined;
      try {
        whole = decodeWholeRecord(row, stored);
      } catch {
        whole = undefined;
      }
      if (whole === undefined) expect(read.ok).toBe(false);
      else expect(read).toEqual(members(whole));
    }), { numRuns: 2_000 });
  });

  it.each<{ what: string; id: string; type: string; metadata: JsonObject; data: JsonObject }>([
    { what: 'quotes and backslashes in id and type', id: 'a"b\\c', type: 'T\\"x', metadata: { prev_hash: 'p' }, data: { a: 1 } },
    { what: 'a nested "data" member in metadata', id: 'i', type: 'T', metadata: { x: { data: { y: 1 } }, ',"data":': '},"data":{' }, data: { a: 1 } },
    { what: 'a nested "metadata" member in data', id: 'i', type: 'T', metadata: {}, data: { metadata: { a: '","metadata":{' }, b: [{ c: '}' }] } },
    { what: 'control characters and non-BMP text', id: 'i\u0001', type: '☃😀', metadata: { note: '\n\t😀' }, data: { '😀': '\u2028' } },
  ])('issue 14: $what: hashed to eventHash and read back as the values', ({ id, type, metadata, data }) => {
    const { event, hash } = readBack('mission-m', 3n, storeRecord(id, type, 1_790_000_000_000, metadata, data));
    expect(hash).toBe(eventHash({ streamName: 'mission-m', revision: 3n, type, metadata, data }));
    expect(members(event)).toEqual({ ok: true, value: { id, type, created: 1_790_000_000_000, metadata, data } });
  });

  it('issue 14: a record laid out otherwise is read whole and hashed from its values by the caller', () => {
    const stored = JSON.stringify({ type: 'T', id: 'i', created: 1, metadata: {}, data: { a: 1 } });
    const { event, hash } = readBack('mission-m', 0n, stored);
    expect(hash).toBeUndefined();
    expect(members(event)).toEqual({ ok: true, value: { id: 'i', type: 'T', created: 1, metadata: {}, data: { a: 1 } } });
  });
});
