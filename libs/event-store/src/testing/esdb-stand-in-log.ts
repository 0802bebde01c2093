/**
 * TEST DOUBLE ONLY (see esdb-grpc-stand-in.ts): the storage view behind the EventStoreDB gRPC
 * stand-in. Never used at run time; src/testing is excluded from the production build.
 *
 * User streams live in a real `EventStore` (in the specs, the embedded SQLite adapter), so the
 * adapter under test is exercised against real storage semantics. What the port cannot hold is
 * simulated here, the way a real EventStoreDB shows it:
 *  - system streams (`$…`, including metadata streams `$$…`) live in memory and are interleaved
 *    into `$all`, so the adapter must really filter them out;
 *  - positions are rewritten into a sparse space far above 2^53 with commit ≠ prepare, so any trip
 *    through `number`, or any confusion of the two halves, breaks the specs.
 */
import { randomUUID } from 'node:crypto';
import type { EventData, EventStore, ExpectedRevision, RecordedEvent } from '../port/event-store.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import { comparePositions, type Position } from '../port/position.js';

/** Wire position = OFFSET + SLOTS × backing position + slot; slot 0 is the backing event itself. */
export const COMMIT_OFFSET = (1n << 60n) + 7n;
export const PREPARE_OFFSET = (1n << 59n) + 3n;
const SLOTS = 1000n;
const PAGE_SIZE = 500;

export interface WireEvent {
  readonly streamName: string;
  readonly revision: bigint;
  readonly position: Position;
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly created: Date;
}

export type StreamReadResult = { readonly found: false } | { readonly found: true; readonly events: WireEvent[] };

export interface AllFilterSpec {
  readonly on: 'stream' | 'type';
  readonly prefixes: readonly string[];
  readonly regex?: RegExp;
}

export function toWirePosition(backing: Position, slot = 0n): Position {
  return { commit: COMMIT_OFFSET + SLOTS * backing.commit + slot, prepare: PREPARE_OFFSET + SLOTS * backing.prepare + slot };
}

/** The backing position whose events are all at or before `wire` (undefined: before everything). */
function backingFloor(wire: Position): Position | undefined {
  if (wire.commit < COMMIT_OFFSET || wire.prepare < PREPARE_OFFSET) return undefined;
  return { commit: (wire.commit - COMMIT_OFFSET) / SLOTS, prepare: (wire.prepare - PREPARE_OFFSET) / SLOTS };
}

const minusOne = (p: Position): Position => ({ commit: p.commit - 1n, prepare: p.prepare - 1n });

export function matchesFilter(event: WireEvent, filter: AllFilterSpec | undefined): boolean {
  if (!filter) return true;
  const subject = filter.on === 'stream' ? event.streamName : event.type;
  if (filter.prefixes.length > 0) return filter.prefixes.some((prefix) => subject.startsWith(prefix));
  return filter.regex ? filter.regex.test(subject) : true;
}

export class StandInLog {
  /** System streams by name, each in revision order; the same events also sit in `systemAll`. */
  private readonly systemStreams = new Map<string, { events: WireEvent[]; tombstoned: boolean }>();
  private readonly systemAll: WireEvent[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly backing: EventStore) {}

  isSystemStream(streamName: string): boolean {
    return streamName.startsWith('$');
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  async append(streamName: string, events: EventData[], expected: ExpectedRevision): Promise<{ revision: bigint; position: Position }> {
    if (this.isSystemStream(streamName)) return this.appendSystem(streamName, events, expected);
    const result = await this.backing.appendToStream(streamName, events, { expectedRevision: expected });
    this.changed();
    return { revision: result.nextExpectedRevision, position: toWirePosition(result.position) };
  }

  /** Adds an event the way the server itself would (stats, projections, metadata), interleaved into `$all`. */
  async appendSystem(streamName: string, events: EventData[], expected: ExpectedRevision): Promise<{ revision: bigint; position: Position }> {
    const stream = this.systemStreams.get(streamName) ?? { events: [], tombstoned: false };
    if (stream.tombstoned) throw new StreamDeletedError(streamName);
    const current = stream.events.length === 0 ? 'no_stream' : BigInt(stream.events.length - 1);
    assertExpected(streamName, expected, current);
    const head = (await this.backing.headPosition()) ?? { commit: 0n, prepare: 0n };
    let position = toWirePosition(head, 1n);
    for (const event of events) {
      const last = this.systemAll[this.systemAll.length - 1];
      position = toWirePosition(head, 1n);
      if (last && comparePositions(last.position, position) >= 0) {
        position = { commit: last.position.commit + 1n, prepare: last.position.prepare + 1n };
      }
      if (backingFloor(position)!.commit !== head.commit) throw new Error('stand-in: too many system events between two user events');
      const recorded: WireEvent = {
        streamName,
        revision: BigInt(stream.events.length),
        position,
        id: event.id ?? randomUUID(),
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(event.metadata ?? {}),
        created: new Date(),
      };
      stream.events.push(recorded);
      this.systemAll.push(recorded);
    }
    this.systemStreams.set(streamName, stream);
    this.changed();
    return { revision: BigInt(stream.events.length - 1), position };
  }

  /** A soft delete of a user stream (system streams are never deleted this way here). */
  async expire(streamName: string): Promise<void> {
    if (this.isSystemStream(streamName)) throw new Error('stand-in: soft delete of a system stream is not modelled');
    await this.backing.expireStreams([streamName]);
  }

  async tombstone(streamName: string, expected: ExpectedRevision): Promise<void> {
    if (!this.isSystemStream(streamName)) {
      await this.backing.tombstoneStream(streamName, { expectedRevision: expected });
      return;
    }
    const stream = this.systemStreams.get(streamName) ?? { events: [], tombstoned: false };
    if (stream.tombstoned) throw new StreamDeletedError(streamName);
    assertExpected(streamName, expected, stream.events.length === 0 ? 'no_stream' : BigInt(stream.events.length - 1));
    this.systemStreams.set(streamName, { events: [], tombstoned: true });
  }

  async readStream(streamName: string, backwards: boolean, from: bigint | 'start' | 'end', count: number): Promise<StreamReadResult> {
    if (this.isSystemStream(streamName)) return this.readSystemStream(streamName, backwards, from, count);
    if ((await this.backing.streamRevision(streamName)) === 'no_stream') return { found: false };
    const events: WireEvent[] = [];
    if (count === 0) return { found: true, events };
    const read = this.backing.readStream(streamName, { direction: backwards ? 'backwards' : 'forwards', fromRevision: from, maxCount: count });
    for await (const event of read) events.push(toWireEvent(event));
    return { found: true, events };
  }

  private readSystemStream(streamName: string, backwards: boolean, from: bigint | 'start' | 'end', count: number): StreamReadResult {
    const stream = this.systemStreams.get(streamName);
    if (stream?.tombstoned) throw new StreamDeletedError(streamName);
    if (!stream || stream.events.length === 0) return { found: false };
    const last = BigInt(stream.events.length - 1);
    const start = from === 'start' ? (backwards ? -1n : 0n) : from === 'end' ? (backwards ? last : last + 1n) : from;
    const selected = backwards
      ? stream.events.filter((e) => e.revision <= start).reverse()
      : stream.events.filter((e) => e.revision >= start);
    return { found: true, events: selected.slice(0, count) };
  }

  /** `$all` forwards from `from` inclusive (undefined: the start), keeping only `filter`'s matches. */
  async readAllForwards(from: Position | undefined, count: number, filter?: AllFilterSpec): Promise<WireEvent[]> {
    const matched: WireEvent[] = [];
    let cursor = from && minusOne(from);
    while (matched.length < count) {
      const page = await this.eventsAfter(cursor, PAGE_SIZE);
      for (const event of page) {
        cursor = event.position;
        if (matchesFilter(event, filter) && matched.length < count) matched.push(event);
      }
      if (page.length < PAGE_SIZE) break;
    }
    return matched;
  }

  /** Up to `count` events of `$all` strictly after `after` (undefined: from the start), user and system alike. */
  async eventsAfter(after: Position | undefined, count: number): Promise<WireEvent[]> {
    if (count <= 0) return [];
    const backingAfter = after && backingFloor(after);
    const user: WireEvent[] = [];
    for await (const event of this.backing.readAll({ after: backingAfter, maxCount: count })) user.push(toWireEvent(event));
    const system = this.systemAll.filter((e) => !after || comparePositions(e.position, after) > 0);
    return merge(user, system).slice(0, count);
  }

  /**
   * `$all` backwards strictly before `before` (undefined: from the end). The port reads forwards
   * only, so this reads everything and reverses it: fine for a test double's data volumes.
   */
  async readAllBackwards(before: Position | undefined, count: number, filter?: AllFilterSpec): Promise<WireEvent[]> {
    const user: WireEvent[] = [];
    for await (const event of this.backing.readAll()) user.push(toWireEvent(event));
    return merge(user, this.systemAll)
      .filter((e) => !before || comparePositions(e.position, before) < 0)
      .filter((e) => matchesFilter(e, filter))
      .reverse()
      .slice(0, count);
  }

  async headPosition(): Promise<Position | undefined> {
    const [last] = await this.readAllBackwards(undefined, 1);
    return last?.position;
  }
}

function assertExpected(streamName: string, expected: ExpectedRevision, current: bigint | 'no_stream'): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === 'no_stream') ||
    (expected === 'stream_exists' && current !== 'no_stream') ||
    expected === current;
  if (!ok) throw new WrongExpectedRevisionError(streamName, expected, current);
}

function toWireEvent(event: RecordedEvent): WireEvent {
  return {
    streamName: event.streamName,
    revision: event.revision,
    position: toWirePosition(event.position),
    id: event.id,
    type: event.type,
    data: JSON.stringify(event.data),
    metadata: JSON.stringify(event.metadata),
    created: event.created,
  };
}

function merge(a: readonly WireEvent[], b: readonly WireEvent[]): WireEvent[] {
  return [...a, ...b].sort((x, y) => comparePositions(x.position, y.position));
}
