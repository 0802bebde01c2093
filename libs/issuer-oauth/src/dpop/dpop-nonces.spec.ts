import { randomBytes } from 'node:crypto';
import { ManualClock } from '../testing.spec-helper.js';
import { DpopNonces } from './dpop-nonces.js';

describe('DpopNonces (RFC 9449 §8)', () => {
  const secret = randomBytes(32);

  it('RFC 9449 §8: a nonce is NQCHAR-safe, verifies in its window and the next, not after', () => {
    const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    const nonces = new DpopNonces(secret, clock);
    const nonce = nonces.issue();
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(nonces.verify(nonce)).toBe(true);
    clock.advance(60);
    expect(nonces.verify(nonce)).toBe(true);
    clock.advance(60);
    expect(nonces.verify(nonce)).toBe(false);
  });

  it('RFC 9449 §8: a replica whose clock runs a window behind still accepts a fresh nonce', () => {
    const ahead = new DpopNonces(secret, new ManualClock(new Date('2026-11-22T10:01:00Z')));
    const behind = new DpopNonces(secret, new ManualClock(new Date('2026-11-22T10:00:30Z')));
    expect(behind.verify(ahead.issue())).toBe(true);
  });

  it('RFC 9449 §8: refuses a nonce of another secret, a tampered window, or garbage', () => {
    const clock = new ManualClock();
    const nonces = new DpopNonces(secret, clock);
    const nonce = nonces.issue();
    expect(new DpopNonces(randomBytes(32), clock).verify(nonce)).toBe(false);
    const bytes = Buffer.from(nonce, 'base64url');
    bytes[7] = bytes[7]! ^ 1;
    expect(nonces.verify(bytes.toString('base64url'))).toBe(false);
    expect(nonces.verify('')).toBe(false);
    expect(nonces.verify(42)).toBe(false);
    expect(nonces.verify(`${nonce}x`)).toBe(false);
  });

  it('refuses a secret shorter than 32 bytes and a bad window', () => {
    expect(() => new DpopNonces(randomBytes(16), new ManualClock())).toThrow(/at least 32 bytes/);
    expect(() => new DpopNonces(secret, new ManualClock(), { windowSeconds: 0 })).toThrow(/positive/);
  });
});
