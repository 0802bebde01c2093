import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { ConfigError } from './config-error.js';
import { publicJwk, publicJwks } from './jwk-schema.js';
import { object, validateJson } from './schema.js';

function withoutD(jwk: JsonWebKey): JsonWebKey {
  const copy = { ...jwk };
  delete copy.d;
  return copy;
}
const ecPrivate = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const ecPublic = withoutD(ecPrivate);
const okpPrivate = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
const okpPublic = withoutD(okpPrivate);

const document = object({ jwks: publicJwks() });
const failure = (jwks: unknown): string => {
  try {
    validateJson(document, { jwks }, 'keys.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('public JWK schema', () => {
  it('accepts EC P-256 and OKP Ed25519 public keys and keeps only known members', () => {
    const { value } = validateJson(document, { jwks: { keys: [{ ...ecPublic, kid: 'a', alg: 'ES256', use: 'sig', x5t: 'ignored' }, { ...okpPublic, alg: 'EdDSA' }] } }, 'keys.json');
    expect(value.jwks.keys).toEqual([
      { kty: 'EC', crv: 'P-256', x: ecPublic.x, y: ecPublic.y, kid: 'a', alg: 'ES256', use: 'sig' },
      { kty: 'OKP', crv: 'Ed25519', x: okpPublic.x, alg: 'EdDSA' },
    ]);
  });

  it('refuses private key material', () => {
    expect(failure({ keys: [ecPrivate] })).toBe('keys.json jwks.keys[0].d: private key material must not be configured here: give the public key only');
    expect(failure({ keys: [okpPublic, okpPrivate] })).toContain('jwks.keys[1].d: private key material');
    expect(failure({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] })).toContain('jwks.keys[0].k: private key material');
  });

  it('names the member that is wrong', () => {
    expect(failure({ keys: [{ ...ecPublic, kty: 'RSA' }] })).toBe('keys.json jwks.keys[0].kty: must be "EC" or "OKP", got "RSA"');
    expect(failure({ keys: [{ ...ecPublic, crv: 'P-384' }] })).toBe('keys.json jwks.keys[0].crv: must be "P-256" for kty "EC", got "P-384"');
    expect(failure({ keys: [{ ...ecPublic, y: undefined }] })).toContain('jwks.keys[0].y: must be the 32-byte coordinate');
    expect(failure({ keys: [{ ...okpPublic, alg: 'ES256' }] })).toBe('keys.json jwks.keys[0].alg: must be "EdDSA" or "Ed25519" for this key, got "ES256"');
    expect(failure({ keys: [{ ...ecPublic, use: 'enc' }] })).toBe('keys.json jwks.keys[0].use: must be "sig", got "enc"');
  });

  it('refuses coordinates that are not a point on the curve', () => {
    const offCurve = { ...ecPublic, y: ecPublic.x };
    expect(failure({ keys: [offCurve] })).toBe('keys.json jwks.keys[0]: is not a valid P-256 public key (the coordinates do not form a point on the curve)');
  });

  it('refuses empty sets, duplicate kids and unknown set members', () => {
    expect(failure({ keys: [] })).toBe('keys.json jwks.keys: must have at least 1 item');
    expect(failure({ keys: [{ ...ecPublic, kid: 'k' }, { ...okpPublic, kid: 'k' }] })).toBe('keys.json jwks.keys[1].kid: duplicate kid "k" (already at keys[0])');
    expect(failure({ keys: [ecPublic], extra: true })).toBe('keys.json jwks.extra: unknown member of a JWK Set (only "keys" is allowed)');
    expect(failure([ecPublic])).toContain('jwks: must be a JWK Set object');
  });

  it('validates a single key on its own', () => {
    expect(validateJson(publicJwk, okpPublic, 'k').value).toEqual({ kty: 'OKP', crv: 'Ed25519', x: okpPublic.x });
  });
});
