import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { BoundedCache } from './bounded-cache.js';

/** RFC 7638 §3.2: the required members of each public key type, in lexicographic order (the thumbprint's JSON order). */
const THUMBPRINT_MEMBERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['EC', ['crv', 'kty', 'x', 'y']],
  ['OKP', ['crv', 'kty', 'x']],
  ['RSA', ['e', 'kty', 'n']],
]);

/** A public JWK imported once: the node:crypto key every verification uses, and its RFC 7638 SHA-256 thumbprint. */
export interface ImportedPublicKey {
  readonly key: KeyObject;
  /** base64url(SHA-256(RFC 7638 canonical JSON)), as jose's `calculateJwkThumbprint(jwk, 'sha256')`. */
  readonly thumbprint: string;
}

/**
 * ADR 0062: at most this many distinct keys stay imported (about 1 KB each); beyond it the least recently used
 * is dropped and imported again when it comes back. Both services see a few keys per client or agent.
 */
export const IMPORTED_PUBLIC_KEYS_MAX = 10_000;

/**
 * RFC 7638 §3.1-3.3: the JSON a JWK's thumbprint is computed over — its key type's required members, each a
 * non-empty string, in lexicographic order, no whitespace. Undefined for an unknown `kty` or a missing member.
 */
export function thumbprintInput(jwk: unknown): string | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const record = jwk as Record<string, unknown>;
  const kty = record['kty'];
  const members = typeof kty === 'string' ? THUMBPRINT_MEMBERS.get(kty) : undefined;
  if (members === undefined) return undefined;
  const canonical: Record<string, string> = {};
  for (const member of members) {
    const value = record[member];
    if (typeof value !== 'string' || value === '') return undefined;
    canonical[member] = value;
  }
  return JSON.stringify(canonical);
}

/**
 * Public JWKs imported once, keyed by their RFC 7638 canonical JSON: exactly the members that make the public key
 * (another `y`, `crv` or `kty` is another entry; `kid`, `alg`, `use` and private members play no part, and the key
 * is imported from those members only, so the entry holds what its key says). Failures are cached too, as null.
 * A bounded LRU: the hot paths (DPoP proofs, client assertions, RFC 9421 request signatures, an Agent Token's
 * `cnf.jwk`) see the same few keys again and again (issue 15, ADR 0062).
 */
export class PublicKeyCache {
  private readonly imported: BoundedCache<ImportedPublicKey | null>;

  constructor(maxEntries = IMPORTED_PUBLIC_KEYS_MAX) {
    this.imported = new BoundedCache(maxEntries);
  }

  /** The JWK's public key and thumbprint; null when it is not a usable public key (unknown type, missing member, point not on the curve). */
  importedPublicKey(jwk: unknown): ImportedPublicKey | null {
    const input = thumbprintInput(jwk);
    if (input === undefined) return null;
    let entry = this.imported.get(input);
    if (entry === undefined) {
      entry = importPublicKey(input);
      this.imported.set(input, entry);
    }
    return entry;
  }

  get size(): number {
    return this.imported.size;
  }
}

/** The one cache per process that both services' verifiers share. */
const sharedKeys = new PublicKeyCache();

/** {@link PublicKeyCache.importedPublicKey} on the process-wide cache. */
export function importedPublicKey(jwk: unknown): ImportedPublicKey | null {
  return sharedKeys.importedPublicKey(jwk);
}

/** RFC 7638 SHA-256 thumbprint of a usable public key; a TypeError for anything else (callers validate keys first). */
export function publicKeyThumbprint(jwk: unknown): string {
  const entry = importedPublicKey(jwk);
  if (entry === null) throw new TypeError('not a usable public JWK');
  return entry.thumbprint;
}

function importPublicKey(input: string): ImportedPublicKey | null {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: JSON.parse(input) as JsonWebKey, format: 'jwk' });
  } catch {
    return null;
  }
  return { key, thumbprint: createHash('sha256').update(input, 'utf8').digest('base64url') };
}
