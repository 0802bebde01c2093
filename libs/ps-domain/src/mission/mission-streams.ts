import { isMissionS256 } from '../blob/mission-s256.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';

/** DESIGN 1: lifecycle + mission log per mission. */
export const MISSION_STREAM_CATEGORY = 'psmission';
/** DESIGN 1: the exact blob bytes (deletable; never in the log). */
export const BLOB_STREAM_CATEGORY = 'psblob';
/** DESIGN 1: Tracked Auth Tokens of a mission. */
export const TOKENS_STREAM_CATEGORY = 'pstokens';

function streamFor(category: string, s256: string): string {
  if (!isMissionS256(s256)) throw new InvalidCommandError('s256 must be a mission digest');
  return `${category}-${s256}`;
}

export function missionStreamName(s256: string): string {
  return streamFor(MISSION_STREAM_CATEGORY, s256);
}

export function blobStreamName(s256: string): string {
  return streamFor(BLOB_STREAM_CATEGORY, s256);
}

export function tokensStreamName(s256: string): string {
  return streamFor(TOKENS_STREAM_CATEGORY, s256);
}
