/** Remembers DPoP proof `jti`s for their acceptance window (RFC 9449 §11.1); one instance per resource. */
export interface ProofReplayCache {
  /** False when `jti` was already seen within its window (a replay). */
  firstUse(jti: string, expiresAtMs: number, nowMs: number): boolean;
}

export class InMemoryProofReplayCache implements ProofReplayCache {
  private readonly seen = new Map<string, number>();

  firstUse(jti: string, expiresAtMs: number, nowMs: number): boolean {
    if (this.seen.size > 10_000) for (const [key, until] of this.seen) if (until <= nowMs) this.seen.delete(key);
    const until = this.seen.get(jti);
    if (until !== undefined && until > nowMs) return false;
    this.seen.set(jti, expiresAtMs);
    return true;
  }
}
