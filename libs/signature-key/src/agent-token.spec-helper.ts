import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

export const ISSUER = 'https://agents.example';
export const AGENT = 'aauth:assistant@agents.example';
export const NOW = new Date('2026-03-01T12:00:00Z');
export const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);
export const clock = { now: () => NOW };

export interface KeyPair {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
}

export async function keyPair(alg: 'ES256' | 'EdDSA'): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey), privateKey };
}

export interface TokenOptions {
  readonly providerKey: KeyPair;
  readonly alg?: 'ES256' | 'EdDSA';
  readonly kid?: string;
  readonly typ?: string;
  readonly claims?: JWTPayload;
}

export async function agentToken(options: TokenOptions): Promise<string> {
  const claims: JWTPayload = { iss: ISSUER, sub: AGENT, iat: NOW_SECONDS - 10, exp: NOW_SECONDS + 3600, ...options.claims };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', typ: options.typ ?? 'aa-agent+jwt', kid: options.kid ?? 'provider-1' })
    .sign(options.providerKey.privateKey);
}
