import type { AppendResult, ExpectedRevision } from '../port/event-store.js';
import { StreamDeletedError, WrongExpectedRevisionError } from '../port/errors.js';
import { categoryOf } from '../port/stream-name.js';
import type { SerializedEvent } from '../port/validate-events.js';
import type { EventQueries } from './event-queries.js';
import type { RecentRow } from './recent-events.js';

/** What the record holds between its metadata and its data. */
const DATA_KEY = ',"data":';

/**
 * The embedded store's writes to the `events` and `streams` tables, run inside the group commit's
 * transaction (one savepoint per queued write). Expected revisions are compared here and nowhere else.
 */
export class EventWrites {
  constructor(private readonly queries: EventQueries) {}

  /** Appends after the expected-revision check; the rows go to the recent-events tail once committed and durable. */
  insert(streamName: string, events: SerializedEvent[], expected: ExpectedRevision): { result: AppendResult; rows: RecentRow[] } {
    const current = this.checkedRevision(streamName, expected);
    const insert = this.queries.statement('INSERT INTO events (stream, category, type, revision, record) VALUES (?, ?, ?, ?, ?)');
    const category = categoryOf(streamName);
    const created = Date.now();
    const rows: RecentRow[] = [];
    let revision = current === 'no_stream' ? -1n : current;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      // data and metadata are already serialized JSON text; splice them in rather than serializing again.
      const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created":${created},"metadata":`;
      const record = `${head}${event.metadata},"data":${event.data}}`;
      position = insert.run(streamName, category, event.type, revision, record).lastInsertRowid as bigint;
      // The texts the recent tail keeps are slices of the record (V8 shares the record's characters), not the
      // serialized strings themselves: those would keep the JSON of every event the tail holds twice in memory.
      const metadataEnd = head.length + event.metadata.length;
      const texts = { metadata: record.slice(head.length, metadataEnd), data: record.slice(metadataEnd + DATA_KEY.length, record.length - 1) };
      rows.push({ position, streamName, category, type: event.type, revision, record, texts });
    }
    return { result: { nextExpectedRevision: revision, position: { commit: position, prepare: position } }, rows };
  }

  /** Deletes the stream's rows and marks the name deleted for good (ADR 0019). */
  tombstone(streamName: string, expected: ExpectedRevision): void {
    const current = this.checkedRevision(streamName, expected);
    this.queries.statement('DELETE FROM events WHERE stream = ?').run(streamName);
    this.queries.statement('INSERT INTO streams (name, revision, tombstone) VALUES (?, ?, 1) ON CONFLICT (name) DO UPDATE SET tombstone = 1')
      .run(streamName, current === 'no_stream' ? -1n : current);
  }

  /** Deletes expired streams' rows, which frees their names; returns the names that were expired. */
  expire(streamNames: readonly string[]): string[] {
    // A tombstoned name has no rows left and stays refused for good (its `streams` row is never touched here):
    // expiry never turns a tombstone back into a free name.
    const events = this.queries.statement('DELETE FROM events WHERE stream = ?');
    const expired: string[] = [];
    for (const name of new Set(streamNames)) {
      if (events.run(name).changes > 0) expired.push(name);
    }
    return expired;
  }

  /** The single place where an expected revision is compared with the stream, inside the write transaction. */
  private checkedRevision(streamName: string, expected: ExpectedRevision): bigint | 'no_stream' {
    const stream = this.queries.streamRow(streamName);
    if (stream?.tombstone) throw new StreamDeletedError(streamName);
    const current = stream ? stream.revision : 'no_stream';
    const matches =
      expected === 'any' ||
      (expected === 'no_stream' && current === 'no_stream') ||
      (expected === 'stream_exists' && current !== 'no_stream') ||
      expected === current;
    if (!matches) throw new WrongExpectedRevisionError(streamName, expected, current);
    return current;
  }
}
