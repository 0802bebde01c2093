import { RateLimitedProblem } from '../errors/problems.js';
import { TestClock } from '../testing/signed-request.spec-helper.js';
import { RateLimiter, sourceKey, TokenBuckets } from './rate-limiter.js';

describe('TokenBuckets (spec 8 abuse control: limits per minute, in memory)', () => {
  it('spec 8: admits perMinute requests at once, then refuses with the seconds until one more is allowed', () => {
    const buckets = new TokenBuckets({ perMinute: 3 });
    expect([0, 0, 0].map(() => buckets.take('k', 0).allowed)).toEqual([true, true, true]);
    expect(buckets.take('k', 0)).toEqual({ allowed: false, retryAfterSeconds: 20 });
    expect(buckets.take('k', 15_000)).toEqual({ allowed: false, retryAfterSeconds: 5 });
    expect(buckets.take('k', 20_000)).toEqual({ allowed: true });
  });

  it('spec 8: refills at perMinute per minute, never beyond perMinute', () => {
    const buckets = new TokenBuckets({ perMinute: 60 });
    for (let i = 0; i < 60; i++) buckets.take('k', 0);
    expect(buckets.take('k', 0).allowed).toBe(false);
    expect(buckets.take('k', 1_000).allowed).toBe(true);
    expect(buckets.take('k', 1_000).allowed).toBe(false);
    let admitted = 0;
    for (let i = 0; i < 100; i++) if (buckets.take('k', 3_600_000).allowed) admitted++;
    expect(admitted).toBe(60);
  });

  it('spec 8: keys are limited independently', () => {
    const buckets = new TokenBuckets({ perMinute: 1 });
    expect(buckets.take('a', 0).allowed).toBe(true);
    expect(buckets.take('a', 0).allowed).toBe(false);
    expect(buckets.take('b', 0).allowed).toBe(true);
  });

  it('spec 8 (in memory, bounded): beyond maxKeys, full buckets go first and then the least recently used', () => {
    const buckets = new TokenBuckets({ perMinute: 1, maxKeys: 10 });
    for (let i = 0; i < 10; i++) buckets.take(`k${i}`, 0);
    buckets.take('busy', 0);
    expect(buckets.size).toBeLessThanOrEqual(10);
    expect(buckets.take('busy', 0).allowed).toBe(false);
  });

  it('spec 8: a clock stepping backwards neither refills nor breaks a bucket', () => {
    const buckets = new TokenBuckets({ perMinute: 1 });
    buckets.take('k', 60_000);
    expect(buckets.take('k', 0).allowed).toBe(false);
  });
});

describe('sourceKey (spec 5.9: repeated failures rate limited per source)', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s → %s', (address, key) => {
    expect(sourceKey(address)).toBe(key);
  });
});

describe('RateLimiter (spec 5.5, 8: rate_limits.per_caller_per_minute / per_source_per_minute → 429 rate_limited)', () => {
  it('spec 8: the per-source limit counts every request of an address; excess is 429 with Retry-After', () => {
    const clock = new TestClock();
    const limiter = new RateLimiter({ per_caller_per_minute: 100, per_source_per_minute: 2 }, clock);
    limiter.checkSource('192.0.2.1');
    limiter.checkSource('192.0.2.1');
    let refusal: unknown;
    try {
      limiter.checkSource('192.0.2.1');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(RateLimitedProblem);
    expect((refusal as RateLimitedProblem).status).toBe(429);
    expect((refusal as RateLimitedProblem).headers['Retry-After']).toBe('30');
    expect(() => limiter.checkSource('192.0.2.2')).not.toThrow();
    clock.advance(30);
    expect(() => limiter.checkSource('192.0.2.1')).not.toThrow();
  });

  it('spec 5.5: the per-caller limit follows the caller key, whatever address it comes from', () => {
    const limiter = new RateLimiter({ per_caller_per_minute: 1, per_source_per_minute: 100 }, new TestClock());
    expect(limiter.tryCaller('principal:ops')).toBeUndefined();
    expect(limiter.tryCaller('principal:ops')).toEqual({ limit: 'per_caller', retryAfterSeconds: 60 });
    expect(limiter.tryCaller('principal:alice')).toBeUndefined();
    expect(() => limiter.checkCaller('principal:ops')).toThrow(RateLimitedProblem);
  });

  it('spec 5.9: addresses of one IPv6 /64 share one allowance', () => {
    const limiter = new RateLimiter({ per_caller_per_minute: 100, per_source_per_minute: 1 }, new TestClock());
    expect(limiter.trySource('2001:db8:1:2::1')).toBeUndefined();
    expect(limiter.trySource('2001:db8:1:2::2')).toMatchObject({ limit: 'per_source' });
  });
});
