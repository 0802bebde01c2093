import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import type { ExpectedRevision, ReadStreamOptions } from '../port/event-store.js';
import { collect } from '../testing/async-iteration.js';
import { EmbeddedEventStore } from './embedded-event-store.js';

/**
 * Stream reads and writes against a model (ADR 0079, stream-heads.ts): whatever the cache of heads holds — learnt from
 * a head query, from the last page of a whole read, or nothing after a reopen — every read, revision and append sees
 * exactly the commits made before it: appends (each with an expected revision: replay records rest on `no_stream`),
 * tombstones (refused for good) and expiries (the name free again).
 */
const NAMES = ['mission-a', 'grant-b'] as const;
type Name = (typeof NAMES)[number];

/** An expected revision as the model states it: exact ones relative to the stream's head when the append runs. */
type Expectation = 'any' | 'no_stream' | 'stream_exists' | 'head' | 'behind' | 'ahead';

type Operation =
  | { readonly kind: 'append'; readonly name: Name; readonly count: number; readonly expect: Expectation }
  | { readonly kind: 'appendBoth'; readonly count: number; readonly expect: readonly [Expectation, Expectation] }
  | { readonly kind: 'tombstone'; readonly name: Name }
  | { readonly kind: 'expire'; readonly name: Name }
  | { readonly kind: 'read'; readonly name: Name; readonly options: ReadStreamOptions }
  | { readonly kind: 'revision'; readonly name: Name }
  | { readonly kind: 'reopen' };

const name = fc.constantFrom(...NAMES);
const readOptions: fc.Arbitrary<ReadStreamOptions> = fc.oneof(
  fc.constant({}),
  fc.constant({ fromRevision: 'start' as const }),
  fc.constant({ fromRevision: 'end' as const }),
  fc.integer({ min: 0, max: 6 }).map((from) => ({ fromRevision: BigInt(from) })),
  // Reads cut short by maxCount twice as often: a head must never be learnt from them.
  fc.integer({ min: 1, max: 5 }).map((maxCount) => ({ maxCount })),
  fc.integer({ min: 0, max: 5 }).map((maxCount) => ({ maxCount })),
  fc.integer({ min: 1, max: 3 }).map((maxCount) => ({ direction: 'backwards' as const, maxCount })),
  fc.constant({ direction: 'backwards' as const }),
);
const expectation = fc.constantFrom<Expectation>('any', 'no_stream', 'stream_exists', 'head', 'behind', 'ahead');
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('append' as const), name, count: fc.integer({ min: 1, max: 3 }), expect: expectation }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('appendBoth' as const), count: fc.integer({ min: 1, max: 2 }), expect: fc.tuple(expectation, expectation) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tombstone' as const), name }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), name }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('read' as const), name, options: readOptions }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('revision' as const), name }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

interface ModelStream {
  numbers: number[];
  tombstoned: boolean;
}

/** The expected revision an expectation names for the stream as the model has it now. */
function expectedRevision(stream: ModelStream, expect: Expectation): ExpectedRevision {
  const head = BigInt(stream.numbers.length - 1);
  switch (expect) {
    case 'head':
      return stream.numbers.length === 0 ? 'no_stream' : head;
    case 'behind':
      return stream.numbers.length < 2 ? 0n : head - 1n;
    case 'ahead':
      return head + 1n;
    default:
      return expect;
  }
}

/** The model's verdict on an append: accepted, or the error class the store must refuse it with. */
function verdict(stream: ModelStream, expected: ExpectedRevision): 'ok' | typeof StreamDeletedError | typeof WrongExpectedRevisionError {
  if (stream.tombstoned) return StreamDeletedError;
  const current = stream.numbers.length === 0 ? 'no_stream' : BigInt(stream.numbers.length - 1);
  const matches =
    expected === 'any' || (expected === 'no_stream' && current === 'no_stream') || (expected === 'stream_exists' && current !== 'no_stream') || expected === current;
  return matches ? 'ok' : WrongExpectedRevisionError;
}

/** What a read returns in the model: the event numbers, in read order. */
function expectedRead(stream: ModelStream, options: ReadStreamOptions): number[] {
  const all = stream.numbers;
  const limit = options.maxCount ?? Number.MAX_SAFE_INTEGER;
  if (options.direction === 'backwards') {
    const from = options.fromRevision === undefined || options.fromRevision === 'end' ? all.length - 1 : options.fromRevision === 'start' ? -1 : Number(options.fromRevision);
    return all.slice(0, Math.min(from, all.length - 1) + 1).reverse().slice(0, limit);
  }
  const from = options.fromRevision === undefined || options.fromRevision === 'start' ? 0 : options.fromRevision === 'end' ? all.length : Number(options.fromRevision);
  return all.slice(from).slice(0, limit);
}

describe('embedded store: stream reads against a model, with and without cached heads (ADR 0079)', () => {
  it('every read, revision and append sees exactly the commits before it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 30 }), async (operations) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'es-reads-model-'));
        // Read semantics, not durability (wal-sync, acknowledge-committed): no fsync per append, so 200 runs of up to 30
        // appends do not take a slow disk's fsync time.
        const open = () => EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' });
        let store = await open();
        const model = new Map<Name, ModelStream>(NAMES.map((stream) => [stream, { numbers: [], tombstoned: false }]));
        let next = 0;
        try {
          for (const op of operations) {
            if (op.kind === 'reopen') {
              await store.close();
              store = await open();
              continue;
            }
            if (op.kind === 'appendBoth') {
              // One call, one transaction; each stream is decided on its own (a refusal leaves the other written).
              const appends = NAMES.map((each, index) => {
                const expected = expectedRevision(model.get(each)!, op.expect[index]!);
                return { name: each, expected, numbers: Array.from({ length: op.count }, () => next++) };
              });
              const outcomes = await store.appendToStreams(
                appends.map(({ name: each, expected, numbers }) => ({ streamName: each, events: numbers.map((n) => ({ type: 'Happened', data: { n } })), expectedRevision: expected })),
              );
              for (const [index, append] of appends.entries()) {
                const modelled = model.get(append.name)!;
                const wanted = verdict(modelled, append.expected);
                const outcome = outcomes[index]!;
                if (wanted === 'ok') {
                  expect(outcome.ok).toBe(true);
                  modelled.numbers.push(...append.numbers);
                } else expect(!outcome.ok && outcome.error).toBeInstanceOf(wanted);
              }
              continue;
            }
            const stream = model.get(op.name)!;
            switch (op.kind) {
              case 'append': {
                const numbers = Array.from({ length: op.count }, () => next++);
                const expected = expectedRevision(stream, op.expect);
                const appending = store.appendToStream(op.name, numbers.map((n) => ({ type: 'Happened', data: { n } })), { expectedRevision: expected });
                const outcome = verdict(stream, expected);
                if (outcome !== 'ok') await expect(appending).rejects.toBeInstanceOf(outcome);
                else {
                  await appending;
                  stream.numbers.push(...numbers);
                }
                break;
              }
              case 'tombstone': {
                const tombstoning = store.tombstoneStream(op.name);
                if (stream.tombstoned) await expect(tombstoning).rejects.toBeInstanceOf(StreamDeletedError);
                else await tombstoning;
                stream.tombstoned = true;
                stream.numbers = [];
                break;
              }
              case 'expire':
                await store.expireStreams([op.name]);
                // A tombstoned name stays refused; a live one is gone and free again.
                stream.numbers = [];
                break;
              case 'read': {
                const reading = collect(store.readStream(op.name, op.options)).then((events) => events.map((event) => event.data['n'] as number));
                if (stream.tombstoned) await expect(reading).rejects.toBeInstanceOf(StreamDeletedError);
                else expect(await reading).toEqual(expectedRead(stream, op.options));
                break;
              }
              case 'revision': {
                const revision = store.streamRevision(op.name);
                if (stream.tombstoned) await expect(revision).rejects.toBeInstanceOf(StreamDeletedError);
                else expect(await revision).toBe(stream.numbers.length === 0 ? 'no_stream' : BigInt(stream.numbers.length - 1));
                break;
              }
            }
          }
        } finally {
          await store.close();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }),
      { numRuns: 200 },
    );
    // 8 s here; each run still opens, reopens and tombstones (checkpoints that fsync): 112 s with 20 ms fsyncs.
  }, 300_000);
});
