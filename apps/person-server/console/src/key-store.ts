import { calculateJwkThumbprint, type JWK } from 'jose';
import { algOf, publicMembers, signingKeyFromJwk, type SigningKey } from '@mission/mission-client';

/**
 * The person's signing key, kept in this browser's IndexedDB as a **non-extractable** WebCrypto key (ADR 0040):
 * script on this origin can ask the browser to sign with it but can never read the private half. Only the
 * public JWK is stored beside it (for the `hwk` Signature-Key and the thumbprint).
 */
const DB = 'mission-console';
const STORE = 'keys';
const ENTRY = 'person';

interface StoredKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

function database(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB is not available'));
  });
}

async function transaction<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await database();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
    });
  } finally {
    db.close();
  }
}

async function asSigningKey(stored: StoredKey): Promise<SigningKey> {
  const alg = algOf(stored.publicJwk);
  const params = alg === 'ES256' ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'Ed25519' };
  const publicKey = await crypto.subtle.importKey('jwk', stored.publicJwk as JsonWebKey, params, true, ['verify']);
  return { alg, privateKey: stored.privateKey, publicKey, publicJwk: stored.publicJwk, jkt: await calculateJwkThumbprint(stored.publicJwk, 'sha256') };
}

/** The key kept in this browser, if any. */
export async function loadKey(): Promise<SigningKey | undefined> {
  const stored = await transaction<StoredKey | undefined>('readonly', (store) => store.get(ENTRY) as IDBRequest<StoredKey | undefined>);
  return stored === undefined ? undefined : asSigningKey(stored);
}

/** A fresh ES256 key pair whose private half never leaves the browser's key store. */
export async function createKey(): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  const publicJwk = publicMembers((await crypto.subtle.exportKey('jwk', pair.publicKey)) as JWK);
  return save({ privateKey: pair.privateKey, publicJwk });
}

/** Imports a private JWK once (e.g. from `mission keygen`) as a non-extractable key; the text is not kept. */
export async function importKey(text: string): Promise<SigningKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error('that is not JSON: paste the private JWK as it is in the key file');
  }
  const key = await signingKeyFromJwk(jwk);
  return save({ privateKey: key.privateKey, publicJwk: key.publicJwk });
}

export async function forgetKey(): Promise<void> {
  await transaction('readwrite', (store) => store.delete(ENTRY));
}

async function save(stored: StoredKey): Promise<SigningKey> {
  await transaction('readwrite', (store) => store.put(stored, ENTRY));
  return asSigningKey(stored);
}
