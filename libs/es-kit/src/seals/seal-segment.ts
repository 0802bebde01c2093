import { categoryOf, type JsonObject } from '@mission/event-store';
import { canonicalJson, sha256Digest } from '../hash-chain.js';

/** Seals live in one stream per service, `auditseal-<service>` (ADR 0028). */
export const SEAL_STREAM_CATEGORY = 'auditseal';
export const SEAL_EVENT_TYPE = 'EventsSealed';
export const SEAL_JWS_TYP = 'mission-audit-seal+jws';

export function sealStreamName(service: string): string {
  return `${SEAL_STREAM_CATEGORY}-${service}`;
}

/**
 * Streams no seal covers: the seals themselves (chained by `prev` instead) and EventStoreDB's checkpoint
 * streams, which are bookkeeping capped with `$maxCount` (old checkpoints vanish by design).
 */
const UNSEALED_CATEGORIES: ReadonlySet<string> = new Set([SEAL_STREAM_CATEGORY, 'checkpoint']);

export function isSealedStream(streamName: string): boolean {
  return !UNSEALED_CATEGORIES.has(categoryOf(streamName));
}

/**
 * What one seal says about one stream: the events `from`..`to` (revisions, inclusive) were written in the
 * seal's range of the global order, and `digest` folds their event hashes in revision order. An entry per
 * stream, not one digest over the whole range, so that a stream erased by design (a tombstoned blob, ADR
 * 0019) leaves every other stream of the seal verifiable.
 */
export interface SealEntry extends JsonObject {
  stream: string;
  from: string;
  to: string;
  digest: string;
}

/** The signed part of a seal (the JWS payload). */
export interface SealPayload extends JsonObject {
  typ: 'mission-audit-seal';
  service: string;
  /** 0, 1, 2, … in the seal stream. */
  seq: number;
  /** `sha-256:` of the previous seal's JWS, or of the genesis text for seq 0: a dropped seal breaks the next one. */
  prev: string;
  /** Global positions `<commit>/<prepare>`: the seal covers events strictly after `after` up to and including `through`. */
  after: string | null;
  through: string;
  events: number;
  /** `sha-256:` of the JCS form of the entries array, which the seal event carries beside the JWS. */
  entries_digest: string;
  sealed_at: string;
}

/** `sha-256:` and the base64url SHA-256 of the text as UTF-8: the chain's own digest form (hash-chain.ts). */
export function sha256Text(text: string): string {
  return sha256Digest(text);
}

export function sealGenesis(service: string): string {
  return sha256Text(`mission-audit-seal-genesis:${service}`);
}

export function entriesDigest(entries: readonly SealEntry[]): string {
  return sha256Text(canonicalJson(entries));
}

/** Member names, two revisions, a digest and JSON punctuation, rounded up. */
const ENTRY_OVERHEAD_BYTES = 140;

/**
 * Accumulates the events of one seal range, stream by stream. The writer and the auditor feed it the same
 * way (every event of the range in global order, with its `eventHash`), so both arrive at the same entries.
 */
export class SealSegment {
  private readonly streams = new Map<string, { from: bigint; to: bigint; hashed: string }>();
  private count = 0;
  private bytes = 0;
  private finished: SealEntry[] | undefined;

  /**
   * An entry's digest is `sha-256:` of `<stream>\n` followed by `<revision>\n<event hash>\n` per event in
   * order, hashed once per seal (a digest per event halved the replay rate). The text is collected and hashed in one
   * call: most streams of a seal have one event (replay records), and a running hash object per stream cost more than
   * the few hundred bytes of text it saved.
   */
  add(streamName: string, revision: bigint, hash: string): void {
    this.count += 1;
    const line = `${revision}\n${hash}\n`;
    const entry = this.streams.get(streamName);
    if (entry === undefined) {
      this.bytes += Buffer.byteLength(streamName, 'utf8') + ENTRY_OVERHEAD_BYTES;
      this.streams.set(streamName, { from: revision, to: revision, hashed: `${streamName}\n${line}` });
      return;
    }
    entry.to = revision;
    entry.hashed += line;
  }

  get events(): number {
    return this.count;
  }

  /** About the size of the entries as JSON, so that a seal stays far below the store's append limit. */
  get approxBytes(): number {
    return this.bytes;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Sorted by stream name, so the digest does not depend on the order streams were first seen. Finishes the segment: add nothing after. */
  entries(): SealEntry[] {
    this.finished ??= [...this.streams.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      // Members in JCS order, so that canonical JSON of the entries is one native JSON.stringify (canonical-json.ts).
      .map(([stream, entry]) => ({ digest: sha256Digest(entry.hashed), from: entry.from.toString(), stream, to: entry.to.toString() }));
    return this.finished;
  }
}
