import { serializeDictionary, serializeInnerList, Token, type InnerList, type Parameters } from 'structured-headers';
import { randomBase64url, utf8 } from '../core/encoding.js';
import type { SigningKey } from '../core/keys.js';

/** The `Signature-Key` header (draft-hardt-httpbis-signature-key) naming how the verifier gets our key. */
export type SignatureKeyScheme =
  | { readonly scheme: 'jwt'; readonly jwt: string }
  | { readonly scheme: 'hwk' }
  /** A resource's configured key (ADR 0016): `id` = the resource identifier, `kid` = the key's id in its JWKS. */
  | { readonly scheme: 'jwks_uri'; readonly id: string; readonly kid: string; readonly dwk: string };

/**
 * `sig=jwt;jwt="…"` for an agent, `sig=hwk;kty=…;crv=…;x=…[;y=…]` for a Management Principal (DESIGN 3.2),
 * `sig=jwks_uri;id="…";dwk="…";kid="…"` for a resource at the revocation endpoint (ADR 0016).
 */
export function signatureKeyHeader(key: SigningKey, scheme: SignatureKeyScheme): string {
  const parameters: Parameters = new Map();
  if (scheme.scheme === 'jwt') {
    parameters.set('jwt', scheme.jwt);
  } else if (scheme.scheme === 'jwks_uri') {
    parameters.set('id', scheme.id);
    parameters.set('dwk', scheme.dwk);
    parameters.set('kid', scheme.kid);
  } else {
    for (const name of ['kty', 'crv', 'x', 'y'] as const) {
      const value = key.publicJwk[name];
      if (typeof value === 'string') parameters.set(name, value);
    }
  }
  return serializeDictionary(new Map([['sig', [new Token(scheme.scheme), parameters]]]));
}

/** RFC 9530 `Content-Digest: sha-256=:…:` over the exact body bytes. */
export async function contentDigestOf(body: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>);
  return serializeDictionary(new Map([['sha-256', [digest, new Map()]]]));
}

export interface SignedHeaders {
  readonly 'signature-key': string;
  readonly 'signature-input': string;
  readonly signature: string;
  readonly 'content-type'?: string;
  readonly 'content-digest'?: string;
}

/**
 * RFC 9421 §3.1 over the DESIGN 3.2 components — `@method @authority @path signature-key`, plus
 * `content-type content-digest` with a body — label `sig`, `created` and a random `nonce` (so two
 * identical requests never carry the same signature: Ed25519 is deterministic and the PS keeps a
 * replay cache).
 */
export async function signRequest(request: { method: string; url: string; body?: Uint8Array; contentType?: string }, key: SigningKey, scheme: SignatureKeyScheme, now = new Date()): Promise<SignedHeaders> {
  const url = new URL(request.url);
  const headers: Record<string, string> = { 'signature-key': signatureKeyHeader(key, scheme) };
  const components = ['@method', '@authority', '@path', 'signature-key'];
  if (request.body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/json';
    headers['content-digest'] = await contentDigestOf(request.body);
    components.push('content-type', 'content-digest');
  }
  const params: Parameters = new Map<string, string | number>([['created', Math.floor(now.getTime() / 1000)], ['nonce', randomBase64url(16)]]);
  const innerList: InnerList = [components.map((name) => [name, new Map()]), params];
  const value = (name: string): string => {
    switch (name) {
      case '@method':
        return request.method.toUpperCase();
      case '@authority':
        return url.host;
      case '@path':
        return url.pathname === '' ? '/' : url.pathname;
      default:
        return headers[name]!;
    }
  };
  const signatureParams = serializeInnerList(innerList);
  const base = [...components.map((name) => `"${name}": ${value(name)}`), `"@signature-params": ${signatureParams}`].join('\n');
  const algorithm = key.alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', hash: 'SHA-256' };
  // WebCrypto ECDSA signatures are the raw r||s that RFC 9421 §3.3.4 asks for.
  const signature = await globalThis.crypto.subtle.sign(algorithm, key.privateKey, utf8(base) as Uint8Array<ArrayBuffer>);
  return {
    ...headers,
    'signature-input': serializeDictionary(new Map([['sig', innerList]])),
    signature: `sig=:${btoa(String.fromCharCode(...new Uint8Array(signature)))}:`,
  } as SignedHeaders;
}

