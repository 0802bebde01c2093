import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { base64url } from '../shared/sha256.js';

/** DESIGN 3.1: a pending proposal id is `pnd_` + 22 base64url characters (128 random bits). */
export const PENDING_ID_PREFIX = 'pnd_';
/** DESIGN 1: proposals live on `psproposal-<pending_id>`. */
export const PROPOSAL_STREAM_CATEGORY = 'psproposal';
export const PENDING_ID_RANDOM_BYTES = 16;

/** 16 bytes leave 4 unused bits in the last character: only `A`, `Q`, `g`, `w` end an id (one spelling per id). */
const PENDING_ID = /^pnd_[A-Za-z0-9_-]{21}[AQgw]$/;

/** The caller supplies 16 bytes from a cryptographic random source. */
export function pendingIdFromBytes(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array) || bytes.length !== PENDING_ID_RANDOM_BYTES) {
    throw new InvalidCommandError(`a pending id needs exactly ${PENDING_ID_RANDOM_BYTES} random bytes`);
  }
  return PENDING_ID_PREFIX + base64url(bytes);
}

export function isPendingId(value: unknown): value is string {
  return typeof value === 'string' && PENDING_ID.test(value);
}

export function proposalStreamName(pendingId: string): string {
  if (!isPendingId(pendingId)) throw new InvalidCommandError('pending id must be pnd_ followed by 22 base64url characters');
  return `${PROPOSAL_STREAM_CATEGORY}-${pendingId}`;
}
