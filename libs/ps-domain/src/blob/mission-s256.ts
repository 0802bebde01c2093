import { InvalidMissionReferenceError } from '../errors/management.errors.js';
import { isSha256Base64url, sha256Base64url } from '../shared/sha256.js';

/** DESIGN 3.1: `s256` = base64url-nopad(SHA-256(the exact blob bytes)). */
export function missionS256(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('mission blob must be bytes');
  return sha256Base64url(bytes);
}

/**
 * Spec 2.1: a `mission_s256` in our encoding — 43 base64url characters, the last one with its unused
 * bits zero, so that a digest has exactly one spelling (no alias is accepted, spec 2.1 rule 2).
 */
export function isMissionS256(value: unknown): value is string {
  return isSha256Base64url(value);
}

/** Spec 2.1, spec 7: a malformed reference fails with `invalid_mission_reference` (before any lookup, spec 5.9). */
export function assertMissionReference(value: unknown): asserts value is string {
  if (!isMissionS256(value)) throw new InvalidMissionReferenceError();
}

/** Whether `bytes` are the blob `s256` identifies (re-hashing, never trusting a stored digest). */
export function matchesMissionS256(bytes: Uint8Array, s256: string): boolean {
  return bytes instanceof Uint8Array && isMissionS256(s256) && missionS256(bytes) === s256;
}
