import { StreamDeletedError } from '../port/errors.js';
import type { ReadStreamOptions } from '../port/event-store.js';
import { PAGE_SIZE, readLimit, startRevision, type EventQueries, type EventRow } from './event-queries.js';
import type { StreamHead, StreamHeads } from './stream-heads.js';

/** What a stream read asks: the SQL, and the cache of committed heads kept beside it. */
export interface StreamSource {
  readonly queries: EventQueries;
  readonly heads: StreamHeads;
}

/**
 * The stream's committed head, from the cache of recently read heads or else from SQLite (then remembered). An
 * absent stream is not remembered: such a read is nearly always the one before a stream's creation (a PAR request,
 * a new grant), and hundreds of those a second would push out the heads of the grants and missions read again.
 */
export function committedHead({ queries, heads }: StreamSource, streamName: string): StreamHead {
  const known = heads.get(streamName);
  if (known !== undefined) return known;
  const row = queries.streamRow(streamName) ?? null;
  if (row !== null) heads.learn(streamName, row);
  return row;
}

/**
 * The pages of one `readStream` (called when its iteration begins; each call of the result gives the next page,
 * `undefined` at the end). Only validation and a cached head are looked at here; SQL runs page by page.
 */
export function streamPages(source: StreamSource, streamName: string, options: ReadStreamOptions): () => EventRow[] | undefined {
  const backwards = options.direction === 'backwards';
  const remaining = readLimit(options.maxCount);
  if (!backwards && (options.fromRevision === undefined || options.fromRevision === 'start') && source.heads.get(streamName) === undefined) {
    return wholeStreamPages(source, streamName, remaining);
  }
  const stream = committedHead(source, streamName);
  if (stream?.tombstone) throw new StreamDeletedError(streamName);
  let from = stream ? startRevision(options.fromRevision, backwards, stream.revision) : undefined;
  // What was committed when the read began: a read from past the end asks SQLite nothing.
  if (!backwards && stream && from !== undefined && from > stream.revision) from = undefined;
  return pagesFrom(source.queries, streamName, from, backwards, remaining);
}

/** Pages from `start` on; `atEnd` is given the stream's head when a forward read reached it with a row in hand. */
function pagesFrom(
  queries: EventQueries,
  streamName: string,
  start: bigint | undefined,
  backwards: boolean,
  maxCount: number,
  atEnd?: (head: bigint) => void,
): () => EventRow[] | undefined {
  let from = start;
  let remaining = maxCount;
  return () => {
    if (from === undefined || from < 0n || remaining === 0) return undefined;
    const limit = Math.min(PAGE_SIZE, remaining);
    const rows = queries.streamPage(streamName, from, backwards, limit);
    remaining -= rows.length;
    const last = rows[rows.length - 1];
    // A short page is the end of the stream: no second query to find that out (most streams fit one page).
    const ended = last === undefined || rows.length < limit;
    if (ended && last !== undefined && !backwards) atEnd?.(last[2]);
    from = ended ? undefined : backwards ? last[2] - 1n : last[2] + 1n;
    return rows;
  };
}

/**
 * A whole stream, forwards, whose head is not cached (issue 15: the first read of each of 10,000 cascaded missions
 * paid a head query, 10 % of the cascade): its first page is read at once. Rows exist only for a live stream
 * (a tombstone deletes them, event-writes.ts), so only an empty first page asks for the head — absent, or
 * tombstoned and refused as before. A page that ends the stream holds its committed head in its last row,
 * remembered as a head query would have remembered it.
 */
function wholeStreamPages(source: StreamSource, streamName: string, maxCount: number): () => EventRow[] | undefined {
  const learn = (head: bigint): void => source.heads.learn(streamName, { revision: head, tombstone: false });
  const next = pagesFrom(source.queries, streamName, 0n, false, maxCount, learn);
  let first = true;
  return () => {
    const rows = next();
    if (first) {
      first = false;
      if ((rows === undefined || rows.length === 0) && committedHead(source, streamName)?.tombstone) throw new StreamDeletedError(streamName);
    }
    return rows;
  };
}
