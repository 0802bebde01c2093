import { InvalidRequestProblem } from '../../errors/problems.js';
import type { MissionIndexEntry } from './mission-index.projection.js';

/** Where the next page starts: strictly after this (approved_at, mission_s256) in the listing's order. */
export type MissionCursor = Pick<MissionIndexEntry, 'approvedAt' | 'missionS256'>;

/**
 * ADR 0040 (as ADR 0034's pending cursor): the last listed mission's position, base64url JSON, not MAC'd.
 * Every page is filtered by the caller again, so a forged cursor only moves where the caller's own listing
 * starts and holds nothing the caller was not shown.
 */
export function encodeMissionCursor(entry: MissionCursor): string {
  return Buffer.from(JSON.stringify({ t: entry.approvedAt, m: entry.missionS256 }), 'utf8').toString('base64url');
}

export function decodeMissionCursor(cursor: string): MissionCursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; m?: unknown };
    if (typeof value.t === 'string' && typeof value.m === 'string') return { approvedAt: value.t, missionS256: value.m };
  } catch {
    // falls through to the refusal
  }
  throw new InvalidRequestProblem('cursor is not valid');
}
