import { jest } from '@jest/globals';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamDeletedError } from '../port/errors.js';
import type { RecordedEvent } from '../port/event-store.js';
import { collect } from '../testing/async-iteration.js';
import { EmbeddedEventStore } from './embedded-event-store.js';
import { EventQueries } from './event-queries.js';
import { EventWrites } from './event-writes.js';
import { StreamHeads, type StreamHead } from './stream-heads.js';

const read = (store: EmbeddedEventStore, stream: string, fromRevision?: bigint): Promise<RecordedEvent[]> =>
  collect(store.readStream(stream, fromRevision === undefined ? {} : { fromRevision }));
const event = (n: number) => ({ type: 'Happened', data: { n } });

/**
 * The cache of stream heads (stream-heads.ts): a read from past a stream's end asks SQLite nothing, and yet every
 * read sees every commit made before it began — what another writer in the process appended, created, tombstoned
 * or expired — and never a write that was rolled back.
 */
describe('embedded store: cached stream heads (issue 15)', () => {
  let dataDir: string;
  let store: EmbeddedEventStore;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'es-heads-'));
    store = await EmbeddedEventStore.open({ dataDir });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a read from past the end of a stream read before asks SQLite for nothing', async () => {
    await store.appendToStream('grant-a', [event(0)]);
    expect(await read(store, 'grant-a')).toHaveLength(1);
    const streamRow = jest.spyOn(EventQueries.prototype, 'streamRow');
    expect(await read(store, 'grant-a', 1n)).toEqual([]);
    expect(await store.streamRevision('grant-a')).toBe(0n);
    expect(streamRow).not.toHaveBeenCalled();
  });

  it('a read after another append to a cached stream returns the appended events', async () => {
    await store.appendToStream('grant-a', [event(0)]);
    expect(await read(store, 'grant-a')).toHaveLength(1);
    await store.appendToStream('grant-a', [event(1), event(2)], { expectedRevision: 0n });
    expect((await read(store, 'grant-a', 1n)).map((recorded) => recorded.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await store.streamRevision('grant-a')).toBe(2n);
  });

  it('a stream read while it did not exist is seen once created', async () => {
    expect(await read(store, 'grant-new')).toEqual([]);
    expect(await store.streamRevision('grant-new')).toBe('no_stream');
    await store.appendToStream('grant-new', [event(0)], { expectedRevision: 'no_stream' });
    expect(await read(store, 'grant-new')).toHaveLength(1);
    expect(await store.streamRevision('grant-new')).toBe(0n);
  });

  it('reads of streams that do not exist take no place in the cache (they would push out the heads read again)', async () => {
    const learn = jest.spyOn(StreamHeads.prototype, 'learn');
    for (let n = 0; n < 20; n++) expect(await read(store, `authreq-${n}`)).toEqual([]);
    expect(learn).not.toHaveBeenCalled();
    await store.appendToStream('authreq-0', [event(0)], { expectedRevision: 'no_stream' });
    expect(await read(store, 'authreq-0')).toHaveLength(1);
    expect(learn).toHaveBeenCalledTimes(1);
  });

  it('a whole read of a stream whose head is not cached asks for no head, and learns it from the last page', async () => {
    await store.appendToStream('mission-a', [event(0), event(1)]);
    await store.close();
    store = await EmbeddedEventStore.open({ dataDir }); // nothing cached
    const streamRow = jest.spyOn(EventQueries.prototype, 'streamRow');
    const streamPage = jest.spyOn(EventQueries.prototype, 'streamPage');
    expect((await read(store, 'mission-a')).map((recorded) => recorded.data)).toEqual([{ n: 0 }, { n: 1 }]);
    expect(streamRow).not.toHaveBeenCalled();
    expect(streamPage).toHaveBeenCalledTimes(1);
    // The head was learnt: a read from past the end and the revision ask SQLite nothing.
    expect(await read(store, 'mission-a', 2n)).toEqual([]);
    expect(await store.streamRevision('mission-a')).toBe(1n);
    expect(streamRow).not.toHaveBeenCalled();
    expect(streamPage).toHaveBeenCalledTimes(1);
  });

  it('a whole read of a tombstoned stream whose head is not cached is refused, with maxCount 0 too', async () => {
    await store.appendToStream('grant-t', [event(0)]);
    await store.tombstoneStream('grant-t');
    await store.close();
    store = await EmbeddedEventStore.open({ dataDir });
    await expect(read(store, 'grant-t')).rejects.toBeInstanceOf(StreamDeletedError);
    const zero = store.readStream('grant-t', { maxCount: 0 })[Symbol.asyncIterator]();
    await expect(zero.next()).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(store.streamRevision('grant-t')).rejects.toBeInstanceOf(StreamDeletedError);
  });

  it('a whole read cut short by maxCount never takes its last row for the head (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 8 }), async (length, maxCount, from) => {
        // A new stream each run: fast-check repeats inputs (and does while shrinking).
        const stream = `mission-p${run++}`;
        if (length > 0) await store.appendToStream(stream, Array.from({ length }, (_, n) => event(n)));
        const cut = await collect(store.readStream(stream, { maxCount }));
        expect(cut.map((recorded) => recorded.data)).toEqual(Array.from({ length: Math.min(length, maxCount) }, (_, n) => ({ n })));
        expect((await read(store, stream, BigInt(from))).map((recorded) => recorded.data)).toEqual(Array.from({ length: Math.max(0, length - from) }, (_, n) => ({ n: from + n })));
        expect(await store.streamRevision(stream)).toBe(length === 0 ? 'no_stream' : BigInt(length - 1));
      }),
      { numRuns: 60 },
    );
  });

  it('a stream of more than a page, read whole with a maxCount ending on a full page, keeps its head unknown', async () => {
    await store.appendToStream('mission-long', Array.from({ length: 2_500 }, (_, n) => event(n)));
    await store.close();
    store = await EmbeddedEventStore.open({ dataDir });
    expect(await collect(store.readStream('mission-long', { maxCount: 2_100 }))).toHaveLength(2_100);
    expect((await read(store, 'mission-long', 2_100n)).length).toBe(400);
    expect(await store.streamRevision('mission-long')).toBe(2_499n);
    expect((await read(store, 'mission-long')).length).toBe(2_500);
  });

  it('a cached stream that is tombstoned is refused on the next read', async () => {
    await store.appendToStream('grant-a', [event(0)]);
    expect(await read(store, 'grant-a')).toHaveLength(1);
    await store.tombstoneStream('grant-a');
    await expect(read(store, 'grant-a', 1n)).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(store.streamRevision('grant-a')).rejects.toBeInstanceOf(StreamDeletedError);
  });

  it('a cached stream that expired reads as no stream, and a new stream of that name is read whole', async () => {
    await store.appendToStream('clientjti-a', [event(0), event(1)]);
    expect(await store.streamRevision('clientjti-a')).toBe(1n);
    await store.expireStreams(['clientjti-a']);
    expect(await store.streamRevision('clientjti-a')).toBe('no_stream');
    await store.appendToStream('clientjti-a', [event(7)], { expectedRevision: 'no_stream' });
    expect((await read(store, 'clientjti-a')).map((recorded) => recorded.data)).toEqual([{ n: 7 }]);
  });

  it('a write rolled back with its commit never moves a cached head', async () => {
    await store.appendToStream('grant-a', [event(0)]);
    expect(await store.streamRevision('grant-a')).toBe(0n);
    // The second write of the same commit fails as a disk error would: the whole commit is rolled back.
    const insert = EventWrites.prototype.insert;
    jest.spyOn(EventWrites.prototype, 'insert').mockImplementation(function (this: EventWrites, streamName, events, expected) {
      if (streamName === 'grant-b') throw new Error('disk I/O error');
      return insert.call(this, streamName, events, expected);
    });
    const both = await Promise.allSettled([
      store.appendToStream('grant-a', [event(1)], { expectedRevision: 0n }),
      store.appendToStream('grant-b', [event(0)]),
    ]);
    expect(both.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await store.streamRevision('grant-a')).toBe(0n);
    jest.restoreAllMocks();
    await store.appendToStream('grant-a', [event(1)], { expectedRevision: 0n });
    expect((await read(store, 'grant-a', 1n)).map((recorded) => recorded.data)).toEqual([{ n: 1 }]);
  });
});

describe('StreamHeads (bounded, and never other than the committed head)', () => {
  const names = fc.constantFrom('grant-a', 'grant-b', 'grant-c', 'mission-a', 'mission-b', 'clientjti-a');
  type Step = { kind: 'learn'; name: string } | { kind: 'commit'; name: string } | { kind: 'remove'; name: string };
  const step: fc.Arbitrary<Step> = fc.oneof(
    names.map((name) => ({ kind: 'learn' as const, name })),
    names.map((name) => ({ kind: 'commit' as const, name })),
    names.map((name) => ({ kind: 'remove' as const, name })),
  );

  it('holds at most its capacity, and every entry it gives is the head the database has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 60 }), (capacity, steps) => {
        const heads = new StreamHeads(capacity);
        const database = new Map<string, StreamHead>();
        for (const { kind, name } of steps) {
          if (kind === 'learn') heads.learn(name, database.get(name) ?? null);
          if (kind === 'commit') {
            const revision = (database.get(name)?.revision ?? -1n) + 1n;
            database.set(name, { revision, tombstone: false });
            heads.committed([{ streamName: name, revision }], []);
          }
          if (kind === 'remove') {
            database.delete(name);
            heads.committed([], [name]);
          }
          expect(heads.size).toBeLessThanOrEqual(capacity);
          for (const known of ['grant-a', 'grant-b', 'grant-c', 'mission-a', 'mission-b', 'clientjti-a']) {
            const cached = heads.get(known);
            if (cached !== undefined) expect(cached).toEqual(database.get(known) ?? null);
          }
        }
      }),
    );
  });

  it('a commit does not make room for streams that are only written (replay records)', () => {
    const heads = new StreamHeads(2);
    heads.learn('grant-a', { revision: 0n, tombstone: false });
    heads.committed([{ streamName: 'clientjti-x', revision: 0n }, { streamName: 'clientjti-y', revision: 0n }], []);
    expect(heads.size).toBe(1);
    expect(heads.get('grant-a')).toEqual({ revision: 0n, tombstone: false });
  });
});
