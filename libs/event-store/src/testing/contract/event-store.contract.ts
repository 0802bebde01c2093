/**
 * The one contract every EventStore adapter passes (embedded SQLite, EventStoreDB through the gRPC
 * stand-in, and a real EventStoreDB when EVENTSTORE_CONNECTION_STRING is set). Every test uses its own
 * random category, so the suite also runs against a long-lived shared server.
 */
import { randomBytes } from 'node:crypto';
import type { EventData, EventStore } from '../../port/event-store.js';
import { InvalidEventError, InvalidStreamNameError, StreamDeletedError, WrongExpectedRevisionError } from '../../port/errors.js';
import { comparePositions, type Position } from '../../port/position.js';
import { collect, take } from '../async-iteration.js';

export interface EventStoreHarness {
  /** A store over fresh (or, for a shared server, at least unrelated) storage. */
  openFresh(): Promise<EventStore>;
  /** Closes `store` and opens a new instance over the same storage: a service restart. */
  restart(store: EventStore): Promise<EventStore>;
  dispose(): Promise<void>;
}

const event = (type: string, data: Record<string, unknown> = {}, metadata?: Record<string, unknown>): EventData =>
  ({ type, data, metadata }) as EventData;

export function describeEventStoreContract(adapterName: string, makeHarness: () => EventStoreHarness): void {
  describe(`EventStore contract: ${adapterName}`, () => {
    let harness: EventStoreHarness;
    let store: EventStore;
    let category: string;
    const stream = (id: string) => `${category}-${id}`;

    beforeAll(async () => {
      harness = makeHarness();
      store = await harness.openFresh();
    });
    afterAll(async () => {
      await store.close();
      await harness.dispose();
    });
    beforeEach(() => {
      category = `t${randomBytes(6).toString('hex')}`;
    });

    describe('append with an expected revision', () => {
      it('creates a stream at revision 0 with no_stream and returns bigint revision and position', async () => {
        const result = await store.appendToStream(stream('a'), [event('Opened')], { expectedRevision: 'no_stream' });
        expect(result.nextExpectedRevision).toBe(0n);
        expect(typeof result.position.commit).toBe('bigint');
        expect(typeof result.position.prepare).toBe('bigint');
        expect(await store.streamRevision(stream('a'))).toBe(0n);
      });

      it('refuses no_stream on an existing stream, naming the actual revision', async () => {
        await store.appendToStream(stream('a'), [event('Opened'), event('Touched')]);
        const error = await store.appendToStream(stream('a'), [event('Opened')], { expectedRevision: 'no_stream' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).toBe(1n);
        expect((error as WrongExpectedRevisionError).streamName).toBe(stream('a'));
      });

      it('refuses stream_exists on a missing stream with actual no_stream', async () => {
        const error = await store.appendToStream(stream('missing'), [event('Touched')], { expectedRevision: 'stream_exists' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).toBe('no_stream');
        expect(await store.streamRevision(stream('missing'))).toBe('no_stream');
      });

      it('accepts stream_exists, exact and any revisions and refuses a stale exact revision', async () => {
        await store.appendToStream(stream('a'), [event('Opened')], { expectedRevision: 'no_stream' });
        await store.appendToStream(stream('a'), [event('Touched')], { expectedRevision: 'stream_exists' });
        const exact = await store.appendToStream(stream('a'), [event('Touched')], { expectedRevision: 1n });
        expect(exact.nextExpectedRevision).toBe(2n);
        await expect(store.appendToStream(stream('a'), [event('Touched')], { expectedRevision: 1n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await expect(store.appendToStream(stream('a'), [event('Touched')], { expectedRevision: 7n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        const any = await store.appendToStream(stream('a'), [event('Touched')], { expectedRevision: 'any' });
        expect(any.nextExpectedRevision).toBe(3n);
      });

      it('writes a multi-event append atomically with consecutive revisions and increasing positions', async () => {
        await store.appendToStream(stream('a'), [event('Opened')]);
        const result = await store.appendToStream(stream('a'), [event('First'), event('Second'), event('Third')], { expectedRevision: 0n });
        expect(result.nextExpectedRevision).toBe(3n);
        const events = await collect(store.readStream(stream('a')));
        expect(events.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n]);
        for (let i = 1; i < events.length; i++) expect(comparePositions(events[i - 1]!.position, events[i]!.position)).toBeLessThan(0);
        expect(comparePositions(events[3]!.position, result.position)).toBe(0);

        await expect(store.appendToStream(stream('a'), [event('Lost'), event('AlsoLost')], { expectedRevision: 0n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.streamRevision(stream('a'))).toBe(3n);
      });

      it('lets exactly one of 50 concurrent appends with the same expected revision win', async () => {
        await store.appendToStream(stream('race'), [event('Opened')], { expectedRevision: 'no_stream' });
        const outcomes = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => store.appendToStream(stream('race'), [event('Claimed', { by: i })], { expectedRevision: 0n })),
        );
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(49);
        for (const failure of lost) expect(failure.reason).toBeInstanceOf(WrongExpectedRevisionError);
        const events = await collect(store.readStream(stream('race')));
        expect(events.map((e) => e.type)).toEqual(['Opened', 'Claimed']);
      });

      it('lets exactly one of 50 concurrent creations with no_stream win', async () => {
        const outcomes = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => store.appendToStream(stream('create'), [event('Created', { by: i })], { expectedRevision: 'no_stream' })),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await store.streamRevision(stream('create'))).toBe(0n);
      });

      it('keeps the global order of acknowledged appends across 200 concurrent writers', async () => {
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) => store.appendToStream(stream(`w${i}`), [event('Written', { i })], { expectedRevision: 'no_stream' })),
        );
        const all = await collect(store.readAll({ filter: { streamCategories: [category] } }));
        expect(all).toHaveLength(200);
        for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1]!.position, all[i]!.position)).toBeLessThan(0);
        const positionOf = new Map(all.map((e) => [e.streamName, e.position]));
        results.forEach((result, i) => expect(comparePositions(positionOf.get(stream(`w${i}`))!, result.position)).toBe(0));
      });
    });

    describe('appending to several streams at once', () => {
      it('writes each stream at its expected revision, in the order given, with increasing positions', async () => {
        await store.appendToStream(stream('b'), [event('Opened')]);
        const outcomes = await store.appendToStreams([
          { streamName: stream('a'), events: [event('Opened'), event('Touched')], expectedRevision: 'no_stream' },
          { streamName: stream('b'), events: [event('Touched', { n: 1 }, { actor: 'x' })], expectedRevision: 0n },
          { streamName: stream('c'), events: [event('Opened')] },
        ]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
        const results = outcomes.map((outcome) => (outcome.ok ? outcome.result : undefined)!);
        expect(results.map((result) => result.nextExpectedRevision)).toEqual([1n, 1n, 0n]);
        expect(comparePositions(results[0]!.position, results[1]!.position)).toBeLessThan(0);
        expect(comparePositions(results[1]!.position, results[2]!.position)).toBeLessThan(0);
        const b = await collect(store.readStream(stream('b')));
        expect(b.map((e) => [e.type, e.revision, e.data, e.metadata])).toEqual([['Opened', 0n, {}, {}], ['Touched', 1n, { n: 1 }, { actor: 'x' }]]);
        const all = await collect(store.readAll({ filter: { streamCategories: [category] } }));
        expect(all.map((e) => `${e.streamName}@${e.revision}`)).toEqual([stream('b') + '@0', stream('a') + '@0', stream('a') + '@1', stream('b') + '@1', stream('c') + '@0']);
      });

      it('reports a refused stream in its outcome and still writes the others', async () => {
        await store.appendToStream(stream('a'), [event('Opened'), event('Touched')]);
        await store.appendToStream(stream('gone'), [event('Opened')]);
        await store.tombstoneStream(stream('gone'));
        const outcomes = await store.appendToStreams([
          { streamName: stream('a'), events: [event('Touched')], expectedRevision: 0n },
          { streamName: stream('b'), events: [event('Opened')], expectedRevision: 'no_stream' },
          { streamName: stream('gone'), events: [event('Touched')] },
          { streamName: stream('missing'), events: [event('Touched')], expectedRevision: 'stream_exists' },
        ]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true, false, false]);
        const refusal = outcomes[0]!;
        expect(!refusal.ok && refusal.error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(!refusal.ok && (refusal.error as WrongExpectedRevisionError).actual).toBe(1n);
        expect(!outcomes[2]!.ok && outcomes[2]!.error).toBeInstanceOf(StreamDeletedError);
        expect(!outcomes[3]!.ok && outcomes[3]!.error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.streamRevision(stream('a'))).toBe(1n);
        expect(await store.streamRevision(stream('b'))).toBe(0n);
        expect(await store.streamRevision(stream('missing'))).toBe('no_stream');
      });

      it('appends to the same stream twice in one call one after the other', async () => {
        const outcomes = await store.appendToStreams([
          { streamName: stream('a'), events: [event('Opened')], expectedRevision: 'no_stream' },
          { streamName: stream('a'), events: [event('Touched')], expectedRevision: 0n },
        ]);
        expect(outcomes.map((outcome) => outcome.ok && outcome.result.nextExpectedRevision)).toEqual([0n, 1n]);
      });

      it('answers an empty call with no outcomes', async () => {
        expect(await store.appendToStreams([])).toEqual([]);
      });

      it('refuses malformed input in any append before writing anything', async () => {
        const appends = [
          { streamName: stream('a'), events: [event('Opened')] },
          { streamName: stream('b'), events: [event('opened')] },
        ];
        await expect(store.appendToStreams(appends)).rejects.toBeInstanceOf(InvalidEventError);
        await expect(store.appendToStreams([{ streamName: stream('a'), events: [] }])).rejects.toBeInstanceOf(InvalidEventError);
        await expect(store.appendToStreams([{ streamName: stream('a'), events: [event('Opened')], expectedRevision: -1n }])).rejects.toBeInstanceOf(InvalidEventError);
        await expect(store.appendToStreams([{ streamName: stream('a'), events: [event('Opened')] }, { streamName: '$x', events: [event('Opened')] }])).rejects.toBeInstanceOf(InvalidStreamNameError);
        expect(await store.streamRevision(stream('a'))).toBe('no_stream');
      });
    });

    describe('reading all events with several categories', () => {
      it('merges the categories in global order across pages and reports the newest head among them', async () => {
        const other = `${category}x`;
        for (let i = 0; i < 30; i++) await store.appendToStream(`${i % 3 === 0 ? other : category}-s${i % 4}`, [event('Touched', { i })]);
        const all = await collect(store.readAll({ filter: { streamCategories: [category, other, category] } }));
        expect(all.map((e) => e.data['i'])).toEqual(Array.from({ length: 30 }, (_, i) => i));
        const after = await collect(store.readAll({ after: all[9]!.position, maxCount: 7, filter: { streamCategories: [other, category] } }));
        expect(after.map((e) => e.data['i'])).toEqual([10, 11, 12, 13, 14, 15, 16]);
        const head = await store.headPosition({ streamCategories: [other, category] });
        expect(comparePositions(head!, all[29]!.position)).toBe(0);
        const otherHead = await store.headPosition({ streamCategories: [other] });
        expect(comparePositions(otherHead!, all[27]!.position)).toBe(0);
      });
    });

    describe('malformed input is refused with a typed error and writes nothing', () => {
      const bad: Array<[string, () => Promise<unknown>]> = [
        ['an empty append', () => store.appendToStream(stream('bad'), [])],
        ['a lower-case type', () => store.appendToStream(stream('bad'), [event('opened')])],
        ['a type with spaces', () => store.appendToStream(stream('bad'), [event('Mission Opened')])],
        ['array data', () => store.appendToStream(stream('bad'), [{ type: 'Opened', data: [] as never }])],
        ['string data', () => store.appendToStream(stream('bad'), [{ type: 'Opened', data: 'x' as never }])],
        ['a bigint in data', () => store.appendToStream(stream('bad'), [event('Opened', { revision: 1n })])],
        ['NaN in data', () => store.appendToStream(stream('bad'), [event('Opened', { n: Number.NaN })])],
        ['a Date in metadata', () => store.appendToStream(stream('bad'), [event('Opened', {}, { at: new Date() })])],
        ['a malformed id', () => store.appendToStream(stream('bad'), [{ type: 'Opened', data: {}, id: 'not-a-uuid' }])],
        ['an append over the size limit', () => store.appendToStream(stream('bad'), [event('Opened', { blob: 'x'.repeat(1_000_001) })])],
        ['a number as expected revision', () => store.appendToStream(stream('bad'), [event('Opened')], { expectedRevision: 0 as never })],
        ['a negative expected revision', () => store.appendToStream(stream('bad'), [event('Opened')], { expectedRevision: -1n })],
      ];
      it.each(bad)('refuses %s with InvalidEventError', async (_, append) => {
        await expect(append()).rejects.toBeInstanceOf(InvalidEventError);
        expect(await store.streamRevision(stream('bad'))).toBe('no_stream');
      });

      it.each([[''], ['$system'], ['line\nbreak']])('refuses the stream name %j with InvalidStreamNameError', async (name) => {
        await expect(store.appendToStream(name, [event('Opened')])).rejects.toBeInstanceOf(InvalidStreamNameError);
      });

      it('refuses an invalid category filter', async () => {
        await expect(collect(store.readAll({ filter: { streamCategories: ['bad-category'] } }))).rejects.toBeInstanceOf(InvalidEventError);
      });
    });

    describe('reading a stream', () => {
      beforeEach(async () => {
        await store.appendToStream(stream('r'), Array.from({ length: 10 }, (_, i) => event('Counted', { i })));
      });

      it('reads forwards and backwards with a start revision and a count', async () => {
        expect((await collect(store.readStream(stream('r')))).map((e) => e.data['i'])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect((await collect(store.readStream(stream('r'), { fromRevision: 7n }))).map((e) => e.revision)).toEqual([7n, 8n, 9n]);
        expect((await collect(store.readStream(stream('r'), { direction: 'backwards', maxCount: 3 }))).map((e) => e.revision)).toEqual([9n, 8n, 7n]);
        expect((await collect(store.readStream(stream('r'), { direction: 'backwards', fromRevision: 2n }))).map((e) => e.revision)).toEqual([2n, 1n, 0n]);
        expect((await collect(store.readStream(stream('r'), { fromRevision: 3n, maxCount: 2 }))).map((e) => e.revision)).toEqual([3n, 4n]);
      });

      it('reads a missing stream as empty', async () => {
        expect(await collect(store.readStream(stream('nothing-here')))).toEqual([]);
      });

      it('returns ids, types, metadata and a creation time', async () => {
        const id = '5f0c6e0a-8d1e-4b7a-9c3e-2a1b0c9d8e7f';
        const before = Date.now();
        await store.appendToStream(stream('m'), [{ id, type: 'Tagged', data: { a: 1 }, metadata: { correlation_id: 'c-1' } }]);
        const [recorded] = await collect(store.readStream(stream('m')));
        expect(recorded).toMatchObject({ id, type: 'Tagged', streamName: stream('m'), data: { a: 1 }, metadata: { correlation_id: 'c-1' } });
        expect(recorded!.created.getTime()).toBeGreaterThanOrEqual(before - 5000);
        expect(recorded!.created.getTime()).toBeLessThanOrEqual(Date.now() + 5000);
      });

      it('round-trips unicode exactly in names, data and metadata', async () => {
        const text = 'ünïcödé — 日本語 — 🧑‍🚀🚀 — \u202Eright-to-left\u202C — e\u0301 — \u0000 — \uD83D\uDE00';
        const name = stream('ünïcödé-🚀');
        await store.appendToStream(name, [event('Noted', { text, [text]: text }, { note: text })]);
        const [recorded] = await collect(store.readStream(name));
        expect(recorded!.data).toEqual({ text, [text]: text });
        expect(recorded!.metadata).toEqual({ note: text });
        expect(recorded!.streamName).toBe(name);
      });

      it('round-trips a large event (900 kB) byte for byte', async () => {
        const blob = randomBytes(450_000).toString('hex');
        await store.appendToStream(stream('large'), [event('Stored', { blob })]);
        const [recorded] = await collect(store.readStream(stream('large')));
        expect(recorded!.data['blob']).toBe(blob);
      });
    });

    describe('reading all events', () => {
      it('reads in global order strictly after a position, filtered by category, with a count', async () => {
        const other = `o${category}`;
        await store.appendToStream(stream('x'), [event('One')]);
        await store.appendToStream(`${other}-x`, [event('Foreign')]);
        const second = await store.appendToStream(stream('y'), [event('Two')]);
        await store.appendToStream(stream('x'), [event('Three'), event('Four')]);

        const mine = await collect(store.readAll({ filter: { streamCategories: [category] } }));
        expect(mine.map((e) => e.type)).toEqual(['One', 'Two', 'Three', 'Four']);
        const after = await collect(store.readAll({ after: second.position, filter: { streamCategories: [category] } }));
        expect(after.map((e) => e.type)).toEqual(['Three', 'Four']);
        const both = await collect(store.readAll({ filter: { streamCategories: [category, other] }, maxCount: 2 }));
        expect(both.map((e) => e.type)).toEqual(['One', 'Foreign']);
      });

      it('reports the head position, optionally per category', async () => {
        expect(await store.headPosition({ streamCategories: [category] })).toBeUndefined();
        await store.appendToStream(stream('h'), [event('One')]);
        const last = await store.appendToStream(stream('h'), [event('Two')]);
        expect(comparePositions((await store.headPosition({ streamCategories: [category] }))!, last.position)).toBe(0);
        expect(comparePositions((await store.headPosition())!, last.position)).toBeGreaterThanOrEqual(0);
      });
    });

    describe('catch-up subscriptions', () => {
      it('delivers history, then live events, in order, and stops on close', async () => {
        const start = await store.headPosition();
        await store.appendToStream(stream('s'), [event('Before1'), event('Before2')]);
        const subscription = store.subscribeToAll({ after: start, filter: { streamCategories: [category] } });
        const received = take(subscription, 5);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await store.appendToStream(stream('s'), [event('Live1')]);
        await store.appendToStream(stream('t'), [event('Live2'), event('Live3')]);
        const events = await received;
        expect(events.map((e) => e.type)).toEqual(['Before1', 'Before2', 'Live1', 'Live2', 'Live3']);
        await subscription.close();
        expect(await collect(subscription)).toEqual([]);
      });

      it('skips other categories and the event at the checkpoint itself', async () => {
        await store.appendToStream(`z${category}-a`, [event('Foreign')]);
        const first = await store.appendToStream(stream('s'), [event('Seen')]);
        await store.appendToStream(stream('s'), [event('Next')]);
        const subscription = store.subscribeToAll({ after: first.position, filter: { streamCategories: [category] } });
        const [next] = await take(subscription, 1);
        expect(next!.type).toBe('Next');
        await subscription.close();
      });

      it('resumes from a stored checkpoint after a restart without loss or repeats', async () => {
        const consumer = `consumer_${category}`;
        expect(await store.checkpoints.load(consumer)).toBeUndefined();
        const start = await store.headPosition();
        await store.appendToStream(stream('c'), Array.from({ length: 5 }, (_, i) => event('Counted', { i })));
        const first = store.subscribeToAll({ after: start, filter: { streamCategories: [category] } });
        const seen = await take(first, 3);
        await store.checkpoints.save(consumer, seen[2]!.position);
        await first.close();

        store = await harness.restart(store);
        await store.appendToStream(stream('c'), [event('Counted', { i: 5 })]);
        const checkpoint = (await store.checkpoints.load(consumer)) as Position;
        expect(comparePositions(checkpoint, seen[2]!.position)).toBe(0);
        const resumed = store.subscribeToAll({ after: checkpoint, filter: { streamCategories: [category] } });
        const rest = await take(resumed, 3);
        expect([...seen, ...rest].map((e) => e.data['i'])).toEqual([0, 1, 2, 3, 4, 5]);
        await resumed.close();
      });

      it('keeps the latest checkpoint per consumer', async () => {
        const consumer = `consumer_${category}`;
        const a = await store.appendToStream(stream('k'), [event('One')]);
        const b = await store.appendToStream(stream('k'), [event('Two')]);
        await store.checkpoints.save(consumer, a.position);
        await store.checkpoints.save(consumer, b.position);
        expect(comparePositions((await store.checkpoints.load(consumer))!, b.position)).toBe(0);
      });
    });

    describe('durability', () => {
      it('keeps every acknowledged append across a restart', async () => {
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendToStream(stream(`d${i}`), [event('Kept', { i })])));
        store = await harness.restart(store);
        const all = await collect(store.readAll({ filter: { streamCategories: [category] } }));
        expect(all.map((e) => e.data['i']).sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 20 }, (_, i) => i));
      });
    });

    describe('tombstones', () => {
      it('makes a deleted stream unreadable and unwritable for good', async () => {
        await store.appendToStream(stream('blob'), [event('Stored', { secret: 's' })]);
        await store.tombstoneStream(stream('blob'), { expectedRevision: 0n });
        await expect(collect(store.readStream(stream('blob')))).rejects.toBeInstanceOf(StreamDeletedError);
        await expect(store.streamRevision(stream('blob'))).rejects.toBeInstanceOf(StreamDeletedError);
        await expect(store.appendToStream(stream('blob'), [event('Stored')])).rejects.toBeInstanceOf(StreamDeletedError);
        await expect(store.appendToStream(stream('blob'), [event('Stored')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(StreamDeletedError);
      });

      it('checks the expected revision before deleting', async () => {
        await store.appendToStream(stream('blob'), [event('Stored'), event('Stored')]);
        await expect(store.tombstoneStream(stream('blob'), { expectedRevision: 0n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.streamRevision(stream('blob'))).toBe(1n);
      });
    });
  });
}
