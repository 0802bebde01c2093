import { timingSafeEqual } from 'node:crypto';
import { InvalidRequestProblem } from '../../errors/problems.js';
import type { AuditDigestKey } from '../../abuse/audit-digest-key.js';

/** DESIGN 3.3: delegation-tree page size — default 50, maximum 200 (also in the README of this folder). */
export const TREE_PAGE = { defaultMaxResults: 50, maxMaxResults: 200 } as const;
/** DESIGN 3.3: a cursor expires 5 minutes after it was issued. */
export const TREE_CURSOR_TTL_SECONDS = 300;

const CURSOR_PURPOSE = 'ps-delegation-tree-cursor';
const CURSOR = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{43})$/;

interface CursorPayload {
  /** Offset of the next node. */
  readonly o: number;
  /** Expiry, seconds since the epoch. */
  readonly e: number;
}

/** Who a cursor is bound to (spec 4.3 rule 1: scoped to the caller and the Mission Reference). */
export interface CursorScope {
  readonly callerKey: string;
  readonly missionS256: string;
}

/**
 * Spec 4.3 rule 1, DESIGN 3.3: the opaque `cursor` of `delegation_tree` — `<payload>.<mac>` where the
 * payload (base64url JSON `{o: offset, e: expiry}`) carries neither the caller nor the reference, and
 * the MAC is HMAC-SHA-256 under the deployment's per-deployment key (domain-separated from the audit
 * digests) over the payload, the caller key and the `mission_s256`. A tampered, foreign (other caller
 * or other mission) or expired cursor is `invalid_request`, one message for all.
 */
export class TreeCursors {
  constructor(private readonly key: AuditDigestKey) {}

  issue(scope: CursorScope, offset: number, now: Date, ttlSeconds = TREE_CURSOR_TTL_SECONDS): string {
    const payload: CursorPayload = { o: offset, e: Math.floor(now.getTime() / 1000) + ttlSeconds };
    const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${encoded}.${this.mac(scope, encoded)}`;
  }

  /** The offset a cursor names. */
  open(cursor: unknown, scope: CursorScope, now: Date): number {
    const refused = (): never => {
      throw new InvalidRequestProblem('cursor is not valid for this caller and mission, or has expired');
    };
    if (typeof cursor !== 'string') return refused();
    const match = CURSOR.exec(cursor);
    if (match === null) return refused();
    const [, encoded, mac] = match as unknown as [string, string, string];
    const expected = Buffer.from(this.mac(scope, encoded), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return refused();
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      return refused();
    }
    const { o, e } = (payload ?? {}) as Partial<CursorPayload>;
    if (!Number.isSafeInteger(o) || (o as number) < 0 || !Number.isSafeInteger(e)) return refused();
    if (Math.floor(now.getTime() / 1000) >= (e as number)) return refused();
    return o as number;
  }

  private mac(scope: CursorScope, encoded: string): string {
    return this.key.digest(CURSOR_PURPOSE, JSON.stringify([scope.callerKey, scope.missionS256, encoded]));
  }
}
