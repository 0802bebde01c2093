import Database from 'better-sqlite3';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventHash, PREV_HASH } from '@mission/es-kit';
import type { JsonObject } from '@mission/event-store';
import { main } from '../main.js';

/** A copy of a stopped service's DATA_DIR (store file and keys), to tamper with. */
export function copyDataDir(dataDir: string, label: string): string {
  const copy = mkdtempSync(join(tmpdir(), `audit-${label}-`));
  cpSync(dataDir, copy, { recursive: true });
  return copy;
}

export interface AuditRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly json?: { clean: boolean; findings: { rule: string; stream?: string; revision?: string; message: string }[]; seals: Record<string, unknown> } & Record<string, unknown>;
}

/** Runs the CLI in-process, as `npx mission-audit …` would. */
export async function audit(args: readonly string[]): Promise<AuditRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, (line) => void out.push(line), (line) => void err.push(line));
  const text = out.join('\n');
  const json = args.includes('--json') && args[0] === 'verify' && code !== 2 ? (JSON.parse(text) as AuditRun['json']) : undefined;
  return { code, out: text, err: err.join('\n'), ...(json ? { json } : {}) };
}

type Row = { position: bigint; stream: string; revision: bigint; record: string };
interface StoredRecord { id: string; type: string; created: number; metadata: JsonObject; data: JsonObject }

/** Direct SQL on a copied store: what an operator with write access to the file can do. */
export class StoreSurgery {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'events.sqlite'));
    this.db.defaultSafeIntegers(true);
  }

  rows(stream: string): Row[] {
    return this.db.prepare('SELECT position, stream, revision, record FROM events WHERE stream = ? ORDER BY revision').all(stream) as Row[];
  }

  streams(like: string): string[] {
    return (this.db.prepare('SELECT DISTINCT stream FROM events WHERE stream LIKE ? ORDER BY position').all(like) as { stream: string }[]).map((row) => row.stream);
  }

  editData(stream: string, revision: bigint, edit: (data: JsonObject) => void): void {
    const row = this.rows(stream).find((candidate) => candidate.revision === revision)!;
    const record = JSON.parse(row.record) as StoredRecord;
    edit(record.data);
    this.db.prepare('UPDATE events SET record = ? WHERE position = ?').run(JSON.stringify(record), row.position);
  }

  /** Rewrites a stored record's text as it is, byte for byte (e.g. the same values in another form). */
  rewriteRecord(stream: string, revision: bigint, rewrite: (text: string) => string): void {
    const row = this.rows(stream).find((candidate) => candidate.revision === revision)!;
    const text = rewrite(row.record);
    if (text === row.record) throw new Error(`the rewrite left ${stream} revision ${revision} unchanged`);
    this.db.prepare('UPDATE events SET record = ? WHERE position = ?').run(text, row.position);
  }

  /** Recomputes every `prev_hash` of the stream, as an operator who knows ADR 0005 would after an edit. */
  rechain(stream: string): void {
    let prev: string | undefined;
    for (const row of this.rows(stream)) {
      const record = JSON.parse(row.record) as StoredRecord;
      if (prev !== undefined) record.metadata[PREV_HASH] = prev;
      this.db.prepare('UPDATE events SET record = ? WHERE position = ?').run(JSON.stringify(record), row.position);
      prev = eventHash({ streamName: stream, revision: row.revision, type: record.type, data: record.data, metadata: record.metadata });
    }
  }

  deleteEvent(stream: string, revision: bigint): void {
    this.db.prepare('DELETE FROM events WHERE stream = ? AND revision = ?').run(stream, revision);
  }

  swapRecords(stream: string, a: bigint, b: bigint): void {
    const rows = this.rows(stream);
    const first = rows.find((row) => row.revision === a)!;
    const second = rows.find((row) => row.revision === b)!;
    const update = this.db.prepare('UPDATE events SET record = ? WHERE position = ?');
    update.run(second.record, first.position);
    update.run(first.record, second.position);
  }

  /** Appends an event with a correct `prev_hash` at the end of the log (after every seal). */
  append(stream: string, type: string, data: JsonObject): void {
    const rows = this.rows(stream);
    const last = rows[rows.length - 1]!;
    const lastRecord = JSON.parse(last.record) as StoredRecord;
    const prev = eventHash({ streamName: stream, revision: last.revision, type: lastRecord.type, data: lastRecord.data, metadata: lastRecord.metadata });
    const record: StoredRecord = { id: 'forged-1', type, created: Date.now(), data, metadata: { ...lastRecord.metadata, [PREV_HASH]: prev } };
    this.db.prepare('INSERT INTO events (stream, category, revision, record) VALUES (?, ?, ?, ?)').run(stream, stream.split('-')[0], last.revision + 1n, JSON.stringify(record));
    this.db.prepare('UPDATE streams SET revision = ? WHERE name = ?').run(last.revision + 1n, stream);
  }

  /** Makes room at `position` (moving every later event one up) and puts a new, correctly chained stream's first event there. */
  insertStreamAt(position: bigint, stream: string, record: StoredRecord): void {
    const shift = this.db.transaction(() => {
      this.db.prepare('UPDATE events SET position = -position WHERE position >= ?').run(position);
      this.db.prepare('UPDATE events SET position = -position + 1 WHERE position < 0').run();
      this.db.prepare('INSERT INTO events (position, stream, category, revision, record) VALUES (?, ?, ?, 0, ?)').run(position, stream, stream.split('-')[0], JSON.stringify(record));
    });
    shift();
  }

  close(): void {
    this.db.close();
  }
}
