import { InvalidCommandError } from '../shared/errors.js';
import { opaqueIdFromBytes, opaqueIdPattern } from '../shared/opaque-id.js';

/** DESIGN 2.3: `msn_` + 22 base64url characters (128 random bits). */
export const MISSION_ID_PREFIX = 'msn_';
/** DESIGN 1: the issuer's mission streams are `mission-<mission_id>`. */
export const MISSION_STREAM_CATEGORY = 'mission';

const MISSION_ID = opaqueIdPattern(MISSION_ID_PREFIX);

/** The caller supplies 16 bytes from a cryptographic random source. */
export function missionIdFromBytes(bytes: Uint8Array): string {
  return opaqueIdFromBytes(MISSION_ID_PREFIX, bytes);
}

export function isMissionId(value: unknown): value is string {
  return typeof value === 'string' && MISSION_ID.test(value);
}

export function missionStreamName(missionId: string): string {
  if (!isMissionId(missionId)) throw new InvalidCommandError('mission_id must be msn_ followed by 22 base64url characters');
  return `${MISSION_STREAM_CATEGORY}-${missionId}`;
}
