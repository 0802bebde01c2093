/**
 * Schema of the embedded store. `position` is the global order: AUTOINCREMENT keeps it strictly
 * increasing even after tombstoned rows are removed, and one writer per file makes it commit order.
 * A stream's revision is its newest row in `events_by_stream`; `streams` holds only the names deleted for good
 * (tombstones, with the revision they had). Schema 3 (ADR 0075): before, every append
 * also upserted the stream's row there — one more B-tree page at a random place per append (a replay record, a
 * PAR request), about a third of the store's write-ahead-log pages.
 * `category` is stored so that category-filtered reads use an index instead of a LIKE scan; `type` (schema 2,
 * ADR 0055) likewise for type-filtered reads, so a consumer of a few event types never reads the others.
 * `record` is one JSON envelope `{id, type, created, metadata, data}`: reading one text column and
 * parsing it once is about twice as fast as five columns (measured with tools/bench/event-store).
 */
export const SCHEMA_VERSION = 3;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS streams (
  name      TEXT PRIMARY KEY,
  revision  INTEGER NOT NULL,
  tombstone INTEGER NOT NULL DEFAULT 0
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream   TEXT NOT NULL,
  category TEXT NOT NULL,
  revision INTEGER NOT NULL,
  record   TEXT NOT NULL,
  type     TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS events_by_stream ON events (stream, revision);
CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position);
CREATE TABLE IF NOT EXISTS checkpoints (
  consumer   TEXT PRIMARY KEY,
  position   TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`;

/** Created after any migration, once the `type` column exists. */
export const TYPE_INDEX_SQL = 'CREATE INDEX IF NOT EXISTS events_by_type ON events (type, position);';

/**
 * Schema 1 → 2: the `type` column, filled from each row's envelope (one pass, at the first start of a
 * build that reads schema 2, inside one transaction so a crash leaves schema 1 intact).
 */
export const MIGRATE_1_TO_2_SQL = `
ALTER TABLE events ADD COLUMN type TEXT NOT NULL DEFAULT '';
UPDATE events SET type = json_extract(record, '$.type');
`;

/**
 * Schema 2 → 3: `streams` keeps only tombstones (the revision of a live stream is read from its events). The rows of
 * live streams go, in one statement inside the start's migration transaction.
 */
export const MIGRATE_2_TO_3_SQL = 'DELETE FROM streams WHERE tombstone = 0;';
