import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedEventStore, type JsonObject, type StreamAppend } from '@mission/event-store';

/** One batch of appends a history generator yields; the writer commits each batch in one transaction. */
export type HistoryBatch = readonly StreamAppend[];

export interface History {
  readonly description: string;
  /** Batches until about `events` events are written. */
  batches(events: number): Iterable<HistoryBatch>;
}

/**
 * Writes a generated history into a fresh embedded store: the store creates its file and schema, then the rows go
 * straight into its `events` table (the envelope of event-writes.ts, category and type columns, stream revisions; the
 * `streams` table holds only tombstones, schema 3) in large
 * transactions — a million events through the append path took minutes, beyond the bench's two-minute budget.
 */
export async function writeHistory(dataDir: string, history: History, events: number): Promise<number> {
  await (await EmbeddedEventStore.open({ dataDir, synchronous: 'NORMAL' })).close();
  const db = new Database(join(dataDir, 'events.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare('INSERT INTO events (stream, category, type, revision, record) VALUES (?, ?, ?, ?, ?)');
  const revisions = new Map<string, number>();
  let written = 0;
  const commit = db.transaction((batches: HistoryBatch[]) => {
    const created = Date.now();
    for (const batch of batches) {
      for (const append of batch) {
        let revision = revisions.get(append.streamName) ?? -1;
        const category = append.streamName.slice(0, append.streamName.indexOf('-'));
        for (const event of append.events) {
          revision++;
          const record = `{"id":"${randomUUID()}","type":${JSON.stringify(event.type)},"created":${created},"metadata":${JSON.stringify(event.metadata ?? {})},"data":${JSON.stringify(event.data)}}`;
          insert.run(append.streamName, category, event.type, revision, record);
          written++;
        }
        revisions.set(append.streamName, revision);
      }
    }
  });
  try {
    let pending: HistoryBatch[] = [];
    for (const batch of history.batches(events)) {
      pending.push(batch);
      if (pending.length >= 25) {
        commit(pending);
        pending = [];
      }
    }
    commit(pending);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return written;
}

/** Collects appends into batches of about `size` events. */
export class Batcher {
  private batch: StreamAppend[] = [];
  private events = 0;
  constructor(private readonly size = 2_000) {}

  add(append: StreamAppend): HistoryBatch | undefined {
    this.batch.push(append);
    this.events += append.events.length;
    // The store takes at most 1,000 streams per appendToStreams.
    if (this.events < this.size && this.batch.length < 1_000) return undefined;
    return this.flush();
  }

  flush(): HistoryBatch | undefined {
    if (this.batch.length === 0) return undefined;
    const batch = this.batch;
    this.batch = [];
    this.events = 0;
    return batch;
  }
}

/** Deterministic 16 bytes from a counter and a salt (ids without randomness, so two runs write the same history). */
export function idBytes(counter: number, salt: number): Uint8Array {
  const bytes = new Uint8Array(16);
  new DataView(bytes.buffer).setUint32(0, counter);
  new DataView(bytes.buffer).setUint32(4, salt);
  for (let index = 8; index < 16; index++) bytes[index] = (counter * 31 + salt * 17 + index) & 0xff;
  return bytes;
}

/** A domain event's typed data as the store's JSON object (the shapes are checked against the domain's own interfaces). */
export function asData(data: object): JsonObject {
  return data as unknown as JsonObject;
}
