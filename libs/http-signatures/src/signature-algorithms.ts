import { createPrivateKey, KeyObject, sign, verify, type JsonWebKey } from 'node:crypto';
import { HttpSignatureError } from './http-signature-error.js';
import { importedPublicKey } from './imported-public-key.js';

/** RFC 9421 §3.3 algorithms we support: §3.3.4 ECDSA P-256 SHA-256 and §3.3.6 EdDSA Ed25519. */
export type SignatureAlgorithm = 'ecdsa-p256-sha256' | 'ed25519';

export const SIGNATURE_ALGORITHMS: readonly SignatureAlgorithm[] = ['ecdsa-p256-sha256', 'ed25519'];

export type KeyInput = KeyObject | JsonWebKey;

export function isSignatureAlgorithm(value: unknown): value is SignatureAlgorithm {
  return typeof value === 'string' && (SIGNATURE_ALGORITHMS as readonly string[]).includes(value);
}

function toKeyObject(key: KeyInput, type: 'public' | 'private'): KeyObject {
  if (key instanceof KeyObject) return key;
  if (type === 'private') return createPrivateKey({ key, format: 'jwk' });
  // Issue 15: a verifier sees the same caller keys request after request; each is imported once (ADR 0062).
  const imported = importedPublicKey(key);
  if (imported === null) throw new TypeError('not a usable public JWK');
  return imported.key;
}

function checkKey(alg: SignatureAlgorithm, key: KeyObject): void {
  const ok =
    alg === 'ed25519'
      ? key.asymmetricKeyType === 'ed25519'
      : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (!ok) throw new HttpSignatureError('algorithm_mismatch', `key does not fit ${alg}`);
}

/** Signs the signature base; ECDSA signatures are the raw 64-byte r||s of §3.3.4. */
export function signBase(alg: SignatureAlgorithm, privateKey: KeyInput, base: string): Buffer {
  const key = toKeyObject(privateKey, 'private');
  checkKey(alg, key);
  const data = Buffer.from(base, 'utf8');
  return alg === 'ed25519'
    ? sign(null, data, key)
    : sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
}

/** Verifies a signature over the signature base; false for a wrong signature, never throws for one. */
export function verifyBase(alg: SignatureAlgorithm, publicKey: KeyInput, base: string, signature: Uint8Array): boolean {
  let key: KeyObject;
  try {
    key = toKeyObject(publicKey, 'public');
  } catch {
    throw new HttpSignatureError('unknown_key', 'the resolved key is not a usable public key');
  }
  checkKey(alg, key);
  const data = Buffer.from(base, 'utf8');
  if (alg === 'ed25519') return verify(null, data, key, signature);
  if (signature.length !== 64) return false;
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
}
