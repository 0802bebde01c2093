import { secureRandomBytes } from './secure-random-bytes.js';

describe('secureRandomBytes (pooled CSPRNG output, ADR 0076)', () => {
  it('hands out fresh copies: a later refill of the pool never changes bytes already handed out', () => {
    const first = secureRandomBytes(32);
    const kept = Buffer.from(first);
    for (let i = 0; i < 1000; i++) secureRandomBytes(32); // several refills of the 4 KiB pool
    expect(first.equals(kept)).toBe(true);
    expect(first.buffer).not.toBe(secureRandomBytes(32).buffer);
  });

  it('never hands out the same bytes twice (100,000 ids of 16 bytes, across many refills)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(secureRandomBytes(16).toString('hex'));
    expect(seen.size).toBe(100_000);
  });

  it('looks uniform: every byte value turns up about equally often', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 2_000; i++) for (const byte of secureRandomBytes(32)) counts[byte]! += 1;
    // 64,000 bytes, 250 expected per value; a stuck or zeroed pool would put thousands on one value.
    expect(Math.max(...counts)).toBeLessThan(400);
    expect(Math.min(...counts)).toBeGreaterThan(130);
  });

  it('serves large requests directly and refuses nonsense sizes', () => {
    expect(secureRandomBytes(5000)).toHaveLength(5000);
    expect(secureRandomBytes(0)).toHaveLength(0);
    expect(() => secureRandomBytes(-1)).toThrow(RangeError);
    expect(() => secureRandomBytes(1.5)).toThrow(RangeError);
  });
});
