import type { EventStore, RecordedEvent } from '@mission/event-store';
import { childEvidenceStreamName, missionStreamName, type ChildEvidence } from '@mission/issuer-domain';
import { InvalidRequestError } from '@mission/issuer-oauth';

export const DEFAULT_EVIDENCE_RESULTS = 100;
export const MAX_EVIDENCE_RESULTS = 1_000;
const READ_CHUNK = 256;
const MAX_CURSOR_LENGTH = 512;
const REVISION = /^(0|[1-9][0-9]{0,18})$/;

export interface ChildEvidencePage {
  /** Spec 2.6 records, `created` and `denied` merged in `created_at` order. */
  readonly evidence: readonly ChildEvidence[];
  /** Present when more records follow: pass it as `cursor` to read on. */
  readonly nextCursor?: string;
}

export interface ChildEvidenceQuery {
  readonly maxResults: number;
  readonly cursor?: string;
}

/**
 * The Child Evidence (spec 2.6, 5 rule 7) of creations under one parent: the `created` records travel in
 * `ChildMissionAttached` on the parent's stream, the `denied` ones in `ChildCreationDenied` on
 * `evidence-<parent>` (decision 0009). Each stream is read in its own order and the two are merged
 * by `created_at` (the parent's stream first on a tie). The opaque cursor is where each stream's read
 * stands, so a page costs what it returns, and records appended later are never skipped or repeated.
 *
 * @throws InvalidRequestError for a cursor this reader did not issue for this mission
 */
export async function readChildEvidence(store: Pick<EventStore, 'readStream'>, missionId: string, query: ChildEvidenceQuery): Promise<ChildEvidencePage> {
  const from = query.cursor === undefined ? { created: 0n, denied: 0n } : parseCursor(query.cursor, missionId);
  const created = new EvidenceSource(store, missionStreamName(missionId), 'ChildMissionAttached', from.created);
  const denied = new EvidenceSource(store, childEvidenceStreamName(missionId), 'ChildCreationDenied', from.denied);
  const evidence: ChildEvidence[] = [];
  while (evidence.length < query.maxResults) {
    const [a, d] = [await created.peek(), await denied.peek()];
    if (a === undefined && d === undefined) break;
    const source = d === undefined || (a !== undefined && createdAt(a) <= createdAt(d)) ? created : denied;
    evidence.push(source.take());
  }
  const more = (await created.peek()) !== undefined || (await denied.peek()) !== undefined;
  return { evidence, ...(more ? { nextCursor: formatCursor(missionId, created.next, denied.next) } : {}) };
}

/** Milliseconds; a record without a readable `created_at` sorts last. */
function createdAt(evidence: ChildEvidence): number {
  const time = typeof evidence.created_at === 'string' ? Date.parse(evidence.created_at) : Number.NaN;
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}

/** One stream's evidence records, read forwards in chunks from a revision. */
class EvidenceSource {
  private buffer: { readonly revision: bigint; readonly evidence: ChildEvidence }[] = [];
  /** The first revision not read into the buffer yet; `undefined` once the stream's end was reached. */
  private readFrom: bigint | undefined;
  /** The revision after the last record taken: where the next page starts. */
  next: bigint;

  constructor(
    private readonly store: Pick<EventStore, 'readStream'>,
    private readonly stream: string,
    private readonly type: string,
    from: bigint,
  ) {
    this.readFrom = from;
    this.next = from;
  }

  async peek(): Promise<ChildEvidence | undefined> {
    while (this.buffer.length === 0 && this.readFrom !== undefined) await this.fill();
    return this.buffer[0]?.evidence;
  }

  /** Only after `peek` returned a record. */
  take(): ChildEvidence {
    const head = this.buffer.shift()!;
    this.next = head.revision + 1n;
    return head.evidence;
  }

  private async fill(): Promise<void> {
    let read = 0;
    let last: bigint | undefined;
    for await (const event of this.store.readStream(this.stream, { fromRevision: this.readFrom!, maxCount: READ_CHUNK })) {
      read += 1;
      last = event.revision;
      const evidence = this.evidenceOf(event);
      if (evidence) this.buffer.push({ revision: event.revision, evidence });
    }
    this.readFrom = read < READ_CHUNK || last === undefined ? undefined : last + 1n;
  }

  private evidenceOf(event: RecordedEvent): ChildEvidence | undefined {
    if (event.type !== this.type) return undefined;
    const evidence = event.data['evidence'];
    return typeof evidence === 'object' && evidence !== null && !Array.isArray(evidence) ? (evidence as unknown as ChildEvidence) : undefined;
  }
}

function formatCursor(missionId: string, created: bigint, denied: bigint): string {
  return Buffer.from(JSON.stringify({ m: missionId, c: created.toString(), d: denied.toString() }), 'utf8').toString('base64url');
}

function parseCursor(cursor: string, missionId: string): { created: bigint; denied: bigint } {
  const invalid = (): never => {
    throw new InvalidRequestError('cursor is not a cursor of this mission\'s evidence');
  };
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid();
  const { m, c, d, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || m !== missionId || typeof c !== 'string' || typeof d !== 'string' || !REVISION.test(c) || !REVISION.test(d)) return invalid();
  return { created: BigInt(c), denied: BigInt(d) };
}
