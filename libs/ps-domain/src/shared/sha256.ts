import { createHash } from 'node:crypto';

/** base64url-nopad(SHA-256(bytes)). */
export function sha256Base64url(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('base64url');
}

/**
 * Exactly the strings `sha256Base64url` can produce: 43 base64url characters whose last one leaves
 * the 2 unused bits zero — so each digest has exactly one spelling (no aliases, spec 2.1 rule 2).
 */
export function isSha256Base64url(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(value);
}

export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
