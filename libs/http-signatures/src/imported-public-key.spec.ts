import fc from 'fast-check';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { createHash, generateKeyPairSync, sign, verify, type JsonWebKey } from 'node:crypto';
import { importedPublicKey, PublicKeyCache, publicKeyThumbprint, thumbprintInput } from './imported-public-key.js';

/**
 * ADR 0062 (issue 15): public JWKs are imported once per distinct key, keyed by their RFC 7638 members, and their
 * thumbprint is node:crypto's SHA-256 of the canonical JSON. jose's calculateJwkThumbprint is the oracle.
 */
type Curve = 'P-256' | 'P-384' | 'P-521' | 'Ed25519' | 'Ed448' | 'X25519';

function keyPair(curve: Curve) {
  const pair =
    curve === 'Ed25519' ? generateKeyPairSync('ed25519')
    : curve === 'Ed448' ? generateKeyPairSync('ed448')
    : curve === 'X25519' ? generateKeyPairSync('x25519')
    : generateKeyPairSync('ec', { namedCurve: curve });
  return { ...pair, jwk: pair.publicKey.export({ format: 'jwk' }) as JsonWebKey };
}

const p256 = keyPair('P-256');
const otherP256 = keyPair('P-256');
const signedByP256 = (data: Buffer) => sign('sha256', data, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' });
const verifiesP256 = (jwk: unknown, data: Buffer, signature: Buffer) => {
  const imported = importedPublicKey(jwk);
  if (imported === null || imported.key.asymmetricKeyType !== 'ec') return false;
  return verify('sha256', data, { key: imported.key, dsaEncoding: 'ieee-p1363' }, signature);
};

describe('importedPublicKey (ADR 0062, RFC 7638)', () => {
  it('RFC 7638 §3: the thumbprint equals jose calculateJwkThumbprint for generated EC and OKP keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Curve>('P-256', 'P-384', 'P-521', 'Ed25519', 'Ed448', 'X25519'), fc.dictionary(fc.constantFrom('kid', 'alg', 'use'), fc.string()), async (curve, extra) => {
        const { jwk } = keyPair(curve);
        const withExtras = { ...extra, ...jwk };
        expect(importedPublicKey(withExtras)!.thumbprint).toBe(await calculateJwkThumbprint(jwk as JWK, 'sha256'));
        expect(publicKeyThumbprint(withExtras)).toBe(await calculateJwkThumbprint(withExtras as JWK, 'sha256'));
      }),
      { numRuns: 120 },
    );
  });

  it('RFC 7638 §3.3: the canonical JSON hashes as jose does for any ASCII member text, quotes, backslashes and control characters included', async () => {
    // jose refuses non-ASCII members outright; real members are base64url.
    const member = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 12 });
    const jwkArb = fc.oneof(
      fc.record({ kty: fc.constant('EC'), crv: member, x: member, y: member, kid: member }),
      fc.record({ kty: fc.constant('OKP'), crv: member, x: member, d: member }),
      fc.record({ kty: fc.constant('RSA'), e: member, n: member, alg: member }),
    );
    await fc.assert(
      fc.asyncProperty(jwkArb, async (jwk) => {
        const ours = createHash('sha256').update(thumbprintInput(jwk)!, 'utf8').digest('base64url');
        expect(ours).toBe(await calculateJwkThumbprint(jwk as JWK, 'sha256'));
      }),
      { numRuns: 300 },
    );
  });

  it('imports a key once: the same KeyObject whatever kid, alg or member order accompany it', () => {
    const first = importedPublicKey({ ...p256.jwk, kid: 'a' })!;
    const reordered = { y: p256.jwk.y, x: p256.jwk.x, kid: 'b', crv: 'P-256', kty: 'EC', alg: 'ES256' };
    expect(importedPublicKey(reordered)).toBe(first);
    expect(first.key.type).toBe('public');
  });

  it('attacker: another key with the same kid and x but another y, crv or kty never gets the first key (nor verifies its signatures)', () => {
    const data = Buffer.from('signed by the first key');
    const signature = signedByP256(data);
    expect(verifiesP256({ ...p256.jwk, kid: 'k' }, data, signature)).toBe(true);
    const sameXOtherY = { kty: 'EC', crv: 'P-256', kid: 'k', x: p256.jwk.x, y: otherP256.jwk.y };
    const sameXOtherCurve = { kty: 'EC', crv: 'P-384', kid: 'k', x: p256.jwk.x, y: p256.jwk.y };
    const sameXAsOkp = { kty: 'OKP', crv: 'Ed25519', kid: 'k', x: p256.jwk.x };
    for (const impostor of [sameXOtherY, sameXOtherCurve, sameXAsOkp]) {
      expect(importedPublicKey(impostor)?.key).not.toBe(importedPublicKey(p256.jwk)!.key);
      expect(importedPublicKey(impostor)?.thumbprint).not.toBe(importedPublicKey(p256.jwk)!.thumbprint);
      expect(verifiesP256(impostor, data, signature)).toBe(false);
    }
    // A genuine second key under the same kid is its own entry.
    expect(importedPublicKey({ ...otherP256.jwk, kid: 'k' })!.key.equals(otherP256.publicKey)).toBe(true);
  });

  it('refuses what is not a usable public key: unknown or symmetric kty, missing or non-string members, a point off the curve', () => {
    for (const jwk of [
      null, 'EC', {}, { kty: 'oct', k: 'c2VjcmV0' }, { kty: 'constructor' }, { kty: 'toString', x: 'a' },
      { kty: 'EC', crv: 'P-256', x: p256.jwk.x }, { kty: 'EC', crv: 'P-256', x: p256.jwk.x, y: 5 }, { kty: 'EC', crv: 'P-256', x: '', y: p256.jwk.y },
      { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }, { kty: 'RSA', e: 'AQAB' },
    ]) {
      expect(importedPublicKey(jwk)).toBeNull();
    }
    expect(() => publicKeyThumbprint({ kty: 'oct', k: 'c2VjcmV0' })).toThrow(TypeError);
  });

  it('imports from the public members only: private members never change which key an entry holds', () => {
    const privateJwk = p256.privateKey.export({ format: 'jwk' }) as JsonWebKey;
    const otherD = (otherP256.privateKey.export({ format: 'jwk' }) as JsonWebKey).d;
    const imported = importedPublicKey({ ...privateJwk, d: otherD })!;
    expect(imported.key.type).toBe('public');
    expect(imported.key.equals(p256.publicKey)).toBe(true);
  });

  it('ADR 0062: never holds more than its bound, whatever keys arrive (fast-check over many keys)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.constantFrom('EC', 'OKP', 'RSA', 'oct'), fc.string({ maxLength: 6 })), { maxLength: 60 }), (bound, keys) => {
        const cache = new PublicKeyCache(bound);
        for (const [kty, x] of keys) {
          cache.importedPublicKey({ kty, crv: 'P-256', x: `x${x}`, y: 'y', e: 'AQAB', n: `n${x}` });
          expect(cache.size).toBeLessThanOrEqual(bound);
        }
      }),
    );
  });
});
