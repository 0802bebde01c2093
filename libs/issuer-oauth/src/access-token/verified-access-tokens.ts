import { BoundedCache } from '@mission/http-signatures';
import type { JSONWebKeySet, ProtectedHeaderParameters } from 'jose';
import type { AccessTokenPayload } from './claims.js';

export interface VerifiedAccessToken {
  readonly header: ProtectedHeaderParameters;
  readonly claims: AccessTokenPayload;
}

/** ADR 0062: tokens remembered at most (each a few KB with its claims); beyond it the least recently used is dropped. */
export const VERIFIED_ACCESS_TOKENS_MAX = 10_000;

/**
 * Issue 15: access tokens whose syntax, header and ES256 signature (RFC 9068 §4) already verified, by the exact
 * token text, so a resource server introspecting one token many times pays the signature check once. What it
 * holds is only "these bytes are signed by this key set": the claim rules (iss, required claims, exp, iat, aud)
 * still run on every call against that call's clock and options, and the mission's state is the caller's business.
 *
 * - Bounded LRU ({@link VERIFIED_ACCESS_TOKENS_MAX}); a token is remembered only after it verified completely, and
 *   an entry whose `exp` has passed is dropped when next looked up (the LRU drops the ones never asked again).
 * - Invalidated by the key set: entries belong to the key set they verified under (its JSON); a call with any other
 *   set empties the cache first, so after a rotation a token of a removed key verifies afresh and fails.
 * - One instance per service (long-lived state of the introspection handler), never per request.
 * - Cached header and claims are deep-frozen: no caller can alter what the next caller is served.
 */
export class VerifiedAccessTokens {
  private readonly entries: BoundedCache<VerifiedAccessToken>;
  private keySet: string | undefined;

  constructor(maxEntries = VERIFIED_ACCESS_TOKENS_MAX) {
    this.entries = new BoundedCache(maxEntries);
  }

  /** The earlier verification of exactly `token` under exactly `publicKeys`, unless its `exp` has passed at `now`. */
  lookup(token: string, publicKeys: JSONWebKeySet, now: number): VerifiedAccessToken | undefined {
    this.adopt(publicKeys);
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.claims.exp <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  /** Remembers a token that verified completely under `publicKeys`; returns the frozen value it serves from now on. */
  remember(token: string, publicKeys: JSONWebKeySet, verified: VerifiedAccessToken, now: number): VerifiedAccessToken {
    const frozen = deepFreeze(verified);
    if (frozen.claims.exp <= now) return frozen;
    this.adopt(publicKeys);
    this.entries.set(token, frozen);
    return frozen;
  }

  get size(): number {
    return this.entries.size;
  }

  private adopt(publicKeys: JSONWebKeySet): void {
    const keySet = JSON.stringify(publicKeys.keys);
    if (keySet === this.keySet) return;
    this.entries.clear();
    this.keySet = keySet;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
