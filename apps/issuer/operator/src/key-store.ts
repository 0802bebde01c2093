import { calculateJwkThumbprint, type JWK } from 'jose';
import { algOf, publicMembers, signingKeyFromJwk, type SigningKey } from '@mission/mission-client';

/**
 * The operator client's key (ADR 0042), kept in this browser's IndexedDB as a **non-extractable** WebCrypto key:
 * script on the issuer's origin can ask the browser to sign a `private_key_jwt` assertion with it but can never
 * read the private half. Beside it only the client_id, the public JWK and its `kid` are stored.
 */
const DB = 'mission-operator';
const STORE = 'keys';
const ENTRY = 'operator';

interface StoredKey {
  readonly clientId: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly kid?: string;
}

/** The operator's identity: the registered client it acts as and that client's key. */
export interface OperatorKey {
  readonly clientId: string;
  readonly key: SigningKey;
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

async function asOperatorKey(stored: StoredKey): Promise<OperatorKey> {
  const alg = algOf(stored.publicJwk);
  const params = alg === 'ES256' ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'Ed25519' };
  const publicKey = await crypto.subtle.importKey('jwk', stored.publicJwk as JsonWebKey, params, true, ['verify']);
  const jkt = await calculateJwkThumbprint(stored.publicJwk, 'sha256');
  const key: SigningKey = { alg, privateKey: stored.privateKey, publicKey, publicJwk: stored.publicJwk, jkt, ...(stored.kid !== undefined ? { kid: stored.kid } : {}) };
  return { clientId: stored.clientId, key };
}

/** The key kept in this browser, if any. */
export async function loadKey(): Promise<OperatorKey | undefined> {
  const stored = await transaction<StoredKey | undefined>('readonly', (store) => store.get(ENTRY) as IDBRequest<StoredKey | undefined>);
  return stored === undefined ? undefined : asOperatorKey(stored);
}

/** A fresh ES256 key pair for `clientId` whose private half never leaves the browser; its `kid` is its thumbprint. */
export async function createKey(clientId: string): Promise<OperatorKey> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  const publicJwk = publicMembers((await crypto.subtle.exportKey('jwk', pair.publicKey)) as JWK);
  return save({ clientId: checkedClientId(clientId), privateKey: pair.privateKey, publicJwk, kid: await calculateJwkThumbprint(publicJwk, 'sha256') });
}

/** Imports the client's private JWK once (e.g. its key file) as a non-extractable key; the text is not kept. */
export async function importKey(clientId: string, text: string): Promise<OperatorKey> {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error('that is not JSON: paste the private JWK as it is in the key file');
  }
  const key = await signingKeyFromJwk(jwk);
  return save({ clientId: checkedClientId(clientId), privateKey: key.privateKey, publicJwk: key.publicJwk, ...(key.kid !== undefined ? { kid: key.kid } : {}) });
}

export async function forgetKey(): Promise<void> {
  await transaction('readwrite', (store) => store.delete(ENTRY));
}

function checkedClientId(clientId: string): string {
  const trimmed = clientId.trim();
  if (trimmed === '') throw new Error('enter the client_id this key is registered for');
  return trimmed;
}

async function save(stored: StoredKey): Promise<OperatorKey> {
  await transaction('readwrite', (store) => store.put(stored, ENTRY));
  return asOperatorKey(stored);
}
