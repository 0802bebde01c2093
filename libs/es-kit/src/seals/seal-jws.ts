import { CompactSign, compactVerify, importJWK, type CryptoKey, type JWK } from 'jose';
import { SEAL_JWS_TYP, type SealPayload } from './seal-segment.js';

/** Signs seal payloads with the service's signing key (the key published at /jwks). */
export interface SealSigner {
  sign(payload: SealPayload): Promise<string>;
}

export function es256SealSigner(privateKey: CryptoKey, kid: string): SealSigner {
  return {
    sign: (payload) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'ES256', kid, typ: SEAL_JWS_TYP })
        .sign(privateKey),
  };
}

export type SealSignatureCheck =
  | { readonly ok: true; readonly payload: SealPayload; readonly kid: string }
  | { readonly ok: false; readonly reason: string };

/** Checks a seal's JWS with public keys only: an auditor needs no secret. */
export async function verifySealJws(jws: string, jwks: { readonly keys: readonly JWK[] }): Promise<SealSignatureCheck> {
  let header: { alg?: unknown; kid?: unknown; typ?: unknown };
  try {
    header = JSON.parse(Buffer.from(jws.split('.')[0] ?? '', 'base64url').toString('utf8')) as typeof header;
  } catch {
    return { ok: false, reason: 'not a compact JWS' };
  }
  if (header.alg !== 'ES256' || header.typ !== SEAL_JWS_TYP) return { ok: false, reason: `unexpected JWS header ${JSON.stringify(header)}` };
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  if (!jwk) return { ok: false, reason: `no key with kid ${JSON.stringify(header.kid)} in the JWKS` };
  try {
    const key = await importJWK({ ...jwk, alg: 'ES256' }, 'ES256');
    const { payload } = await compactVerify(jws, key, { algorithms: ['ES256'] });
    return { ok: true, payload: JSON.parse(new TextDecoder().decode(payload)) as SealPayload, kid: String(header.kid) };
  } catch (error) {
    return { ok: false, reason: `signature does not verify: ${(error as Error).message}` };
  }
}
