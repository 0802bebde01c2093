import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { normalizeAuthoritySet, type AuthoritySet } from './authority-set.js';

/** The `typ` member that domain-separates this hash from every other JCS hash we compute. */
export const AUTHORITY_SET_TYP = 'mission-authority-set';

/**
 * The RFC 8785 (JCS) text that `authorityHash` hashes (DESIGN 2.3):
 * `JCS({"typ":"mission-authority-set","iss":<issuer>,"value":<authority set>})`, the set in its
 * normal form (entries in approved order, actions de-duplicated and sorted by code unit).
 */
export function authoritySetCanonicalJson(issuer: string, set: AuthoritySet): string {
  if (typeof issuer !== 'string' || issuer.length === 0) throw new TypeError('issuer must be a non-empty string');
  const text = canonicalize({ typ: AUTHORITY_SET_TYP, iss: issuer, value: normalizeAuthoritySet(set) });
  if (text === undefined) throw new TypeError('authority set cannot be canonicalized');
  return text;
}

/**
 * `authority_hash` = `"sha-256:" + base64url-nopad(SHA-256(JCS({"typ":"mission-authority-set","iss":<issuer>,"value":<set>})))`
 * (DESIGN 2.3; known answers in ../shared/vectors/authority-hash.json).
 */
export function authorityHash(issuer: string, set: AuthoritySet): string {
  return `sha-256:${createHash('sha256').update(authoritySetCanonicalJson(issuer, set), 'utf8').digest('base64url')}`;
}

export function isAuthorityHash(value: unknown): value is string {
  return typeof value === 'string' && /^sha-256:[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/.test(value);
}
