import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamDeletedError } from '../port/errors.js';
import type { ReadStreamOptions } from '../port/event-store.js';
import { EmbeddedEventStore } from './embedded-event-store.js';

/**
 * Stream reads against a model (ADR 0079, stream-heads.ts): whatever the cache of heads holds — learnt from a head
 * query, from the last page of a whole read, or nothing after a reopen — every read, revision and append sees exactly
 * the commits made before it: appends, tombstones (refused for good) and expiries (the name free again).
 */
const NAMES = ['mission-a', 'grant-b'] as const;
type Name = (typeof NAMES)[number];

type Operation =
  | { readonly kind: 'append'; readonly name: Name; readonly count: number }
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
  fc.integer({ min: 0, max: 5 }).map((maxCount) => ({ maxCount })),
  fc.integer({ min: 1, max: 3 }).map((maxCount) => ({ direction: 'backwards' as const, maxCount })),
  fc.constant({ direction: 'backwards' as const }),
);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), name, count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tombstone' as const), name }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), name }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('read' as const), name, options: readOptions }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('revision' as const), name }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

interface ModelStream {
  numbers: number[];
  tombstoned: boolean;
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
        let store = await EmbeddedEventStore.open({ dataDir });
        const model = new Map<Name, ModelStream>(NAMES.map((stream) => [stream, { numbers: [], tombstoned: false }]));
        let next = 0;
        try {
          for (const op of operations) {
            if (op.kind === 'reopen') {
              await store.close();
              store = await EmbeddedEventStore.open({ dataDir });
              continue;
            }
            const stream = model.get(op.name)!;
            switch (op.kind) {
              case 'append': {
                const numbers = Array.from({ length: op.count }, () => next++);
                const appending = store.appendToStream(op.name, numbers.map((n) => ({ type: 'Happened', data: { n } })));
                if (stream.tombstoned) await expect(appending).rejects.toBeInstanceOf(StreamDeletedError);
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
                const reading = (async () => {
                  const read: number[] = [];
                  for await (const event of store.readStream(op.name, op.options)) read.push(event.data['n'] as number);
                  return read;
                })();
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
  }, 120_000);
});
