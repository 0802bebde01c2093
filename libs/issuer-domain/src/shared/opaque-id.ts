import { InvalidCommandError } from './errors.js';

/**
 * Identifiers made of a prefix and 128 random bits in base64url without padding (22 characters).
 * 16 bytes leave 4 unused bits in the last character, so only `A`, `Q`, `g`, `w` can end an id:
 * checking that gives each id exactly one spelling.
 */
export const ID_RANDOM_BYTES = 16;

export function opaqueIdFromBytes(prefix: string, bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array) || bytes.length !== ID_RANDOM_BYTES) {
    throw new InvalidCommandError(`an identifier needs exactly ${ID_RANDOM_BYTES} random bytes`);
  }
  return prefix + base64url(bytes);
}

export function opaqueIdPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}[A-Za-z0-9_-]{21}[AQgw]$`);
}

export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
