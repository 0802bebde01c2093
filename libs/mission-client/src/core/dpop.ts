import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { sha256Base64url } from './encoding.js';

/** A DPoP key pair held by one client instance (RFC 9449 §4), for hand-made requests. */
export class DpopKey {
  private constructor(
    private readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    readonly jkt: string,
    readonly alg: 'ES256' | 'EdDSA',
  ) {}

  static async generate(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
    const publicJwk = await exportJWK(publicKey);
    return new DpopKey(privateKey, publicJwk, await calculateJwkThumbprint(publicJwk, 'sha256'), alg);
  }

  /** RFC 9449 §4.2 proof for one request; `accessToken` adds `ath`, `nonce` echoes a server's DPoP-Nonce. */
  async proof(method: string, url: string, options: { accessToken?: string; nonce?: string; now?: Date } = {}): Promise<string> {
    const htu = new URL(url);
    htu.search = '';
    htu.hash = '';
    const claims: Record<string, unknown> = { htm: method, htu: htu.toString(), jti: globalThis.crypto.randomUUID() };
    if (options.accessToken) claims['ath'] = await sha256Base64url(options.accessToken);
    if (options.nonce) claims['nonce'] = options.nonce;
    return new SignJWT(claims)
      .setProtectedHeader({ typ: 'dpop+jwt', alg: this.alg, jwk: this.publicJwk })
      .setIssuedAt(Math.floor((options.now ?? new Date()).getTime() / 1000))
      .sign(this.privateKey);
  }
}
