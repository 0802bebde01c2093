import { SignatureReplayCache, signatureIdentity } from './signature-replay-cache.js';

const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function ecdsaSignature(r: bigint, s: bigint): Uint8Array {
  return Buffer.from(r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0'), 'hex');
}

describe('SignatureReplayCache (DESIGN 3.2: replay cache on the signature for its validity window, in memory, bounded)', () => {
  it('DESIGN 3.2: the first use passes, a second use within the window is a replay', () => {
    const cache = new SignatureReplayCache();
    expect(cache.remember('a', 2_000, 1_000)).toBe('first_use');
    expect(cache.remember('a', 2_000, 1_500)).toBe('replayed');
    expect(cache.remember('b', 2_000, 1_500)).toBe('first_use');
  });

  it('DESIGN 3.2: once the window has closed the entry is forgotten (the created check refuses such a signature anyway)', () => {
    const cache = new SignatureReplayCache();
    cache.remember('a', 2_000, 1_000);
    expect(cache.remember('a', 9_000, 2_001)).toBe('first_use');
  });

  it('DESIGN 3.2: bounded — expired entries are pruned to make room; a cache full of live entries refuses', () => {
    const cache = new SignatureReplayCache({ maxEntries: 2 });
    expect(cache.remember('a', 1_000, 0)).toBe('first_use');
    expect(cache.remember('b', 5_000, 0)).toBe('first_use');
    expect(cache.remember('c', 5_000, 2_000)).toBe('first_use');
    expect(cache.size).toBe(2);
    expect(cache.remember('d', 5_000, 3_500)).toBe('full');
    expect(cache.remember('b', 5_000, 3_500)).toBe('replayed');
  });

  it('DESIGN 3.2: a full cache is swept at most once a second, so a flood cannot make every request scan it', () => {
    const cache = new SignatureReplayCache({ maxEntries: 1 });
    cache.remember('a', 1_000, 0);
    expect(cache.remember('b', 5_000, 500)).toBe('full');
    expect(cache.remember('b', 5_000, 1_200)).toBe('full');
    expect(cache.remember('b', 5_000, 1_600)).toBe('first_use');
  });
});

describe('signatureIdentity (DESIGN 3.2: the signature value, robust to ECDSA malleability)', () => {
  it('RFC 9421 §3.3.4: (r, s) and (r, n − s) are the same signature', () => {
    const r = 0x1234n;
    const s = 0x5678n;
    expect(signatureIdentity('ecdsa-p256-sha256', ecdsaSignature(r, s))).toBe(signatureIdentity('ecdsa-p256-sha256', ecdsaSignature(r, P256_ORDER - s)));
  });

  it('DESIGN 3.2: distinct signature values have distinct identities, also across algorithms', () => {
    const bytes = new Uint8Array(64).fill(7);
    const other = new Uint8Array(64).fill(8);
    expect(signatureIdentity('ed25519', bytes)).not.toBe(signatureIdentity('ed25519', other));
    expect(signatureIdentity('ed25519', bytes)).not.toBe(signatureIdentity('ecdsa-p256-sha256', bytes));
  });
});
