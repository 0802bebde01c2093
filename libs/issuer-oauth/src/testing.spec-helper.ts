import { openTempEmbeddedStore, type TempEmbeddedStore } from '@mission/event-store/testing';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import type { Clock } from './pipeline/clock.js';

/** A real embedded store in a temp dir. */
export function tempStore(): Promise<TempEmbeddedStore> {
  return openTempEmbeddedStore('issuer-oauth-');
}

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(private current = new Date('2026-11-22T10:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
  get seconds(): number {
    return Math.floor(this.current.getTime() / 1000);
  }
}

export type TestAlg = 'ES256' | 'EdDSA';

export interface TestKey {
  readonly alg: TestAlg;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
  readonly jkt: string;
}

export async function testKey(alg: TestAlg = 'ES256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const publicJwk = await exportJWK(publicKey);
  return { alg, privateKey, publicKey, publicJwk, privateJwk: await exportJWK(privateKey), jkt: await calculateJwkThumbprint(publicJwk) };
}

/** Signs any claims with any protected header: the tests build valid and deliberately broken JWTs alike. */
export async function signJwt(key: TestKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, ...header } as { alg: string }).sign(key.privateKey);
}

/** Replaces the payload of a signed JWT without re-signing it (a forged token). */
export function withForgedPayload(jwt: string, claims: JWTPayload): string {
  const [header, , signature] = jwt.split('.');
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}
