import { createHash } from 'node:crypto';
import type { SignatureAlgorithm } from '@mission/http-signatures';

/** Order of the P-256 group (FIPS 186-4 D.1.2.3): an ECDSA signature (r, s) verifies as (r, n − s) too. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/**
 * The identity of a signature value for the replay cache. ECDSA values are malleable — whoever saw
 * (r, s) can send (r, n − s), which verifies as well — so `s` is normalised to the lower half first;
 * Ed25519 values are already canonical (the verifier refuses S ≥ L). Hashed so entries stay small.
 */
export function signatureIdentity(alg: SignatureAlgorithm, signature: Uint8Array): string {
  let bytes = Buffer.from(signature);
  if (alg === 'ecdsa-p256-sha256' && bytes.length === 64) {
    const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
    const low = s > P256_ORDER / 2n ? P256_ORDER - s : s;
    bytes = Buffer.concat([bytes.subarray(0, 32), Buffer.from(low.toString(16).padStart(64, '0'), 'hex')]);
  }
  return createHash('sha256').update(alg).update('\0').update(bytes).digest('base64url');
}

export type ReplayVerdict = 'first_use' | 'replayed' | 'full';

export interface SignatureReplayCacheOptions {
  /** Upper bound on remembered signatures; default 200 000 (a few tens of MB at most). */
  readonly maxEntries?: number;
}

/**
 * DESIGN 3.2 / spec 5.6: remembers every accepted signature until its validity window closes, so the
 * same signature is accepted at most once.
 *
 * In memory, bounded and per replica: it answers repeats this replica saw without IO. Across replicas and
 * restarts the check is made by `StoredSignatureClaims` in the event store (issue 12 defect 8), which
 * the authenticator consults after this cache reports a first use.
 *
 * When full of still-valid entries the cache refuses (fails closed) instead of forgetting one.
 */
export class SignatureReplayCache {
  private readonly maxEntries: number;
  /** identity → end of validity (ms since epoch); insertion order ≈ expiry order, which pruning exploits. */
  private readonly seen = new Map<string, number>();
  private lastPruneMs = Number.NEGATIVE_INFINITY;
  private insertsSincePrune = 0;

  constructor(options: SignatureReplayCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 200_000;
  }

  /** Records `identity` as used until `validUntilMs`; `replayed` if it is already recorded and still valid. */
  remember(identity: string, validUntilMs: number, nowMs: number): ReplayVerdict {
    const until = this.seen.get(identity);
    if (until !== undefined && until >= nowMs) return 'replayed';
    if (until !== undefined) this.seen.delete(identity);
    // A full scan at most once a second: a flood cannot turn every request into an O(n) sweep.
    if (this.seen.size >= this.maxEntries && nowMs - this.lastPruneMs >= 1000) this.prune(nowMs);
    if (this.seen.size >= this.maxEntries) return 'full';
    this.seen.set(identity, validUntilMs);
    // Amortised clean-up keeps memory near the live window instead of at the bound.
    if (++this.insertsSincePrune >= 4096) this.prune(nowMs);
    return 'first_use';
  }

  get size(): number {
    return this.seen.size;
  }

  /** Drops every entry whose window has closed. */
  prune(nowMs: number): void {
    this.lastPruneMs = nowMs;
    this.insertsSincePrune = 0;
    for (const [identity, until] of this.seen) if (until < nowMs) this.seen.delete(identity);
  }
}
