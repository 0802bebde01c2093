import { InvalidRequestProblem } from '../../errors/problems.js';
import type { PendingProposalEntry } from './pending-proposals.projection.js';

/** Where the next page starts: strictly after this (submitted_at, pending_id) in the listing's order. */
export type PendingCursor = Pick<PendingProposalEntry, 'submittedAt' | 'pendingId'>;

/**
 * ADR 0034: the cursor is the last listed proposal's position, base64url JSON. It is not MAC'd: every page
 * is filtered by the caller again, so a forged cursor only moves where a caller's own listing starts, and
 * it holds nothing the caller was not shown.
 */
export function encodePendingCursor(entry: PendingCursor): string {
  return Buffer.from(JSON.stringify({ t: entry.submittedAt, p: entry.pendingId }), 'utf8').toString('base64url');
}

export function decodePendingCursor(cursor: string): PendingCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; p?: unknown };
    if (typeof value.t === 'string' && typeof value.p === 'string') return { submittedAt: value.t, pendingId: value.p };
  } catch {
    // falls through to the refusal
  }
  throw new InvalidRequestProblem('cursor is not valid');
}
