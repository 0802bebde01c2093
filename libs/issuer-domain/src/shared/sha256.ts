import { createHash } from 'node:crypto';

/** base64url-nopad(SHA-256(UTF-8 text)): how every secret (codes, refresh tokens) is stored. */
export function sha256Base64url(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** A value `sha256Base64url` can produce: 43 base64url characters. */
export function isSha256Base64url(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(value);
}
