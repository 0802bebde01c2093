import fc from 'fast-check';
import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, type CryptoKey, type JWK } from 'jose';
import { signEs256Jws } from './sign-es256-jws.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
const payloads = fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 8 });

/**
 * ADR 0068: access tokens are signed on node:crypto (RFC 7515 compact ES256, IEEE P1363 signature); jose is the
 * oracle — every token must verify with jose's `compactVerify` and carry exactly the header and payload given.
 */
describe('signEs256Jws (RFC 7515 §7.1, RFC 7518 §3.4)', () => {
  it('every token verifies with jose and carries exactly the header and payload given (KeyObject and CryptoKey alike)', async () => {
    const verifyingKey = await importJWK({ ...publicJwk, alg: 'ES256' }, 'ES256');
    const cryptoKey = await importJWK({ ...(privateKey.export({ format: 'jwk' }) as JWK), alg: 'ES256' }, 'ES256');
    await fc.assert(
      fc.asyncProperty(payloads, fc.boolean(), async (payload, asCryptoKey) => {
        const header = { alg: 'ES256', typ: 'at+jwt', kid: 'issuer-key-1' };
        const token = signEs256Jws(header, payload, asCryptoKey ? (cryptoKey as CryptoKey) : privateKey);
        const verified = await compactVerify(token, verifyingKey);
        expect(verified.protectedHeader).toEqual(header);
        expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(JSON.parse(JSON.stringify(payload)));
        expect(Buffer.from(token.split('.')[2]!, 'base64url')).toHaveLength(64);
      }),
      { numRuns: 100 },
    );
  });

  it('a token altered in its payload or signed by another key does not verify with the issuer key', async () => {
    const verifyingKey = await importJWK({ ...publicJwk, alg: 'ES256' }, 'ES256');
    const token = signEs256Jws({ alg: 'ES256', typ: 'at+jwt', kid: 'k' }, { sub: 'alice' }, privateKey);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'mallory' })).toString('base64url')}.${signature}`;
    await expect(compactVerify(forged, verifyingKey)).rejects.toThrow();
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    await expect(compactVerify(signEs256Jws({ alg: 'ES256', typ: 'at+jwt', kid: 'k' }, { sub: 'alice' }, other), verifyingKey)).rejects.toThrow();
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'k' });
  });

  it('refuses a key that is not a P-256 private key (never signs ES256 with another curve or a public key)', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const ed25519 = generateKeyPairSync('ed25519').privateKey;
    for (const key of [p384, ed25519, publicKey] as KeyObject[]) {
      expect(() => signEs256Jws({ alg: 'ES256' }, {}, key)).toThrow(TypeError);
    }
  });
});
