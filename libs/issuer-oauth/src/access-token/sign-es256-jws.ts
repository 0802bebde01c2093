import { KeyObject, sign } from 'node:crypto';
import type { CryptoKey } from 'jose';

/**
 * Private keys as node:crypto `KeyObject`s, made once per signing key (a CryptoKey converts with `KeyObject.from`).
 * Weak: a rotated-out key is dropped with the object that held it.
 */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

function signingKeyObject(key: CryptoKey | KeyObject): KeyObject {
  if (key instanceof KeyObject) return checkedEs256Key(key);
  let converted = keyObjects.get(key);
  if (converted === undefined) {
    converted = checkedEs256Key(KeyObject.from(key));
    keyObjects.set(key, converted);
  }
  return converted;
}

function checkedEs256Key(key: KeyObject): KeyObject {
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new TypeError('ES256 signing needs a P-256 private key');
  }
  return key;
}

/**
 * RFC 7515 §7.1 compact serialization of an ES256 JWS (RFC 7518 §3.4: the signature is R‖S, 64 bytes) over the JSON
 * of `header` and `payload`, signed with node:crypto's synchronous `sign`. jose 6 signs only through WebCrypto: a
 * promise job and a key re-wrap per call, measured at 136–166 µs of CPU per access token against 56–68 µs here
 * (ADR 0068, as ADR 0035 did for verification). jose stays the oracle: the tests verify every token with it.
 */
export function signEs256Jws(header: Readonly<Record<string, unknown>>, payload: object, key: CryptoKey | KeyObject): string {
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: signingKeyObject(key), dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

function base64urlJson(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
