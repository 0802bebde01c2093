import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { MissionClientError } from './errors.js';

/** JWS algorithms the services accept (ES256 on P-256, EdDSA on Ed25519). */
export type SigningAlg = 'ES256' | 'EdDSA';

/**
 * One asymmetric key, loaded once: the private half for signing, the public half (extractable, as
 * DPoP and `hwk` need it on the wire), the public JWK and its RFC 7638 thumbprint (`jkt`).
 */
export interface SigningKey {
  readonly alg: SigningAlg;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly jkt: string;
  readonly kid?: string;
}

/** The algorithm a JWK is for; anything but P-256 and Ed25519 is refused. */
export function algOf(jwk: JWK): SigningAlg {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  throw new MissionClientError('bad_key', `unsupported key: kty ${String(jwk.kty)} crv ${String(jwk.crv)} (use P-256 or Ed25519)`);
}

/** Only the public members of an EC or OKP JWK. */
export function publicMembers(jwk: JWK): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, ...(y !== undefined ? { y } : {}) } as JWK;
}

/** Imports a private JWK (e.g. a key file) as a {@link SigningKey}. */
export async function signingKeyFromJwk(jwk: JWK): Promise<SigningKey> {
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.d !== 'string') {
    throw new MissionClientError('bad_key', 'the key is not a private JWK (no "d" member)');
  }
  const alg = algOf(jwk);
  let privateKey: CryptoKey;
  let publicKey: CryptoKey;
  try {
    privateKey = (await importJWK({ ...jwk, ext: false }, alg)) as CryptoKey;
    publicKey = (await importJWK({ ...publicMembers(jwk), ext: true }, alg, { extractable: true })) as CryptoKey;
  } catch (error) {
    throw new MissionClientError('bad_key', `the key cannot be imported: ${(error as Error).message}`);
  }
  const publicJwk = publicMembers(jwk);
  return { alg, privateKey, publicKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256'), ...(jwk.kid !== undefined ? { kid: jwk.kid } : {}) };
}

/** A fresh key pair (a DPoP key, an agent's own key). `exportPrivate` keeps the private half extractable (key files). */
export async function generateSigningKey(alg: SigningAlg = 'ES256', options: { exportPrivate?: boolean } = {}): Promise<SigningKey & { privateJwk?: JWK }> {
  const pair = await generateKeyPair(alg, { ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}), extractable: options.exportPrivate === true });
  const publicJwk = publicMembers(await exportJWK(pair.publicKey));
  const jkt = await calculateJwkThumbprint(publicJwk, 'sha256');
  const publicKey = (await importJWK({ ...publicJwk, ext: true }, alg, { extractable: true })) as CryptoKey;
  const privateJwk = options.exportPrivate === true ? { ...(await exportJWK(pair.privateKey)), kid: jkt } : undefined;
  return { alg, privateKey: pair.privateKey, publicKey, publicJwk, jkt, ...(privateJwk ? { privateJwk } : {}) };
}
