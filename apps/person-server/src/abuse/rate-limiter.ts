import { isIPv4, isIPv6 } from 'node:net';
import { RateLimitedProblem } from '../errors/problems.js';
import type { Clock } from '../time/clock.js';

export interface TokenBucketsOptions {
  /** Sustained rate and burst size: a full bucket holds one minute's allowance. */
  readonly perMinute: number;
  /** Upper bound on tracked keys; default 100 000. */
  readonly maxKeys?: number;
}

export type TakeResult = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * Token buckets, one per key, in memory (per replica: N replicas together admit up to N × the limit).
 * Each bucket holds up to `perMinute` tokens and refills at `perMinute` per minute; a request takes one.
 * Bounded: when more than `maxKeys` keys are tracked, full buckets (indistinguishable from new ones) are
 * dropped, then the least recently used — which at worst gives that key a fresh allowance.
 */
export class TokenBuckets {
  private readonly capacity: number;
  private readonly refillPerMs: number;
  private readonly maxKeys: number;
  /** Least recently used first (entries are re-inserted on use). */
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: TokenBucketsOptions) {
    if (!(options.perMinute > 0)) throw new RangeError('perMinute must be positive');
    this.capacity = options.perMinute;
    this.refillPerMs = options.perMinute / 60_000;
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  take(key: string, nowMs: number): TakeResult {
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, updatedMs: nowMs };
    // A clock stepping backwards refills nothing rather than draining the bucket.
    const elapsed = Math.max(0, nowMs - bucket.updatedMs);
    bucket.tokens = Math.min(this.capacity, bucket.tokens + elapsed * this.refillPerMs);
    bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    this.buckets.delete(key);
    if (this.buckets.size >= this.maxKeys) this.evict(nowMs);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)) };
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict(nowMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (nowMs - bucket.updatedMs) * this.refillPerMs >= this.capacity) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys * 0.9) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The rate-limit key of a remote address: IPv4 as is, an IPv4-mapped IPv6 address as its IPv4 address,
 * any other IPv6 address as its /64 prefix (one subscriber usually holds a whole /64, so per-address
 * limits would be trivial to sidestep). `unknown` when the address is missing.
 */
export function sourceKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const withoutZone = address.split('%')[0]!;
  const [head = '', tail = ''] = withoutZone.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = withoutZone.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = withoutZone.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export interface RateLimits {
  readonly per_caller_per_minute: number;
  readonly per_source_per_minute: number;
}

export interface RateLimitVerdict {
  readonly limit: 'per_source' | 'per_caller';
  readonly retryAfterSeconds: number;
}

/**
 * Spec 5.5, 5.9, 8 (abuse control): per-source (remote address) and per-caller limits from
 * `rate_limits` in the configuration; excess answers `429 rate_limited` with `Retry-After`. The source
 * limit applies before authentication (it also bounds signature-verification work), the caller limit after.
 */
export class RateLimiter {
  private readonly perSource: TokenBuckets;
  private readonly perCaller: TokenBuckets;

  constructor(
    limits: RateLimits,
    private readonly clock: Clock,
  ) {
    this.perSource = new TokenBuckets({ perMinute: limits.per_source_per_minute });
    this.perCaller = new TokenBuckets({ perMinute: limits.per_caller_per_minute });
  }

  /** Takes one request from the remote address's allowance; the refusal, if any, without throwing. */
  trySource(address: string | undefined): RateLimitVerdict | undefined {
    const result = this.perSource.take(sourceKey(address), this.clock.now().getTime());
    return result.allowed ? undefined : { limit: 'per_source', retryAfterSeconds: result.retryAfterSeconds };
  }

  /** Takes one request from the authenticated caller's allowance (key from `callerKey`). */
  tryCaller(callerKey: string): RateLimitVerdict | undefined {
    const result = this.perCaller.take(callerKey, this.clock.now().getTime());
    return result.allowed ? undefined : { limit: 'per_caller', retryAfterSeconds: result.retryAfterSeconds };
  }

  /** {@link trySource}, throwing `429 rate_limited` with `Retry-After` on excess. */
  checkSource(address: string | undefined): void {
    const refused = this.trySource(address);
    if (refused !== undefined) throw new RateLimitedProblem(refused.retryAfterSeconds);
  }

  /** {@link tryCaller}, throwing `429 rate_limited` with `Retry-After` on excess. */
  checkCaller(callerKey: string): void {
    const refused = this.tryCaller(callerKey);
    if (refused !== undefined) throw new RateLimitedProblem(refused.retryAfterSeconds);
  }
}
