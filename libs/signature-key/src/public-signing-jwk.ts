import { importedPublicKey, type SignatureAlgorithm } from '@mission/http-signatures';
import { SignatureKeyError } from './signature-key-error.js';

/** A public signing key as accepted in `hwk` and in an Agent Token's `cnf.jwk`: only the RFC 7638 members. */
export type PublicSigningJwk =
  | { readonly kty: 'EC'; readonly crv: 'P-256'; readonly x: string; readonly y: string }
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly x: string };

/** Members only private or symmetric keys carry (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

/**
 * Validates an untrusted JWK as a public EC P-256 or OKP Ed25519 key and returns only its public members.
 * Refuses private members, other key types and curves, and points that are not on the curve.
 */
export function publicSigningJwk(value: unknown, what: string): PublicSigningJwk {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SignatureKeyError('invalid_key', `${what} is not a JWK object`);
  }
  const jwk = value as Record<string, unknown>;
  for (const member of PRIVATE_MEMBERS) {
    if (Object.hasOwn(jwk, member)) throw new SignatureKeyError('invalid_key', `${what} carries private key material`);
  }
  const coordinate = (name: 'x' | 'y'): string => {
    const c = jwk[name];
    if (typeof c !== 'string' || !BASE64URL_32_BYTES.test(c)) {
      throw new SignatureKeyError('invalid_key', `${what} needs a 32-byte base64url "${name}"`);
    }
    return c;
  };
  let key: PublicSigningJwk;
  if (jwk['kty'] === 'EC' && jwk['crv'] === 'P-256') {
    key = { kty: 'EC', crv: 'P-256', x: coordinate('x'), y: coordinate('y') };
  } else if (jwk['kty'] === 'OKP' && jwk['crv'] === 'Ed25519') {
    if (Object.hasOwn(jwk, 'y')) throw new SignatureKeyError('invalid_key', `${what}: an OKP key has no "y"`);
    key = { kty: 'OKP', crv: 'Ed25519', x: coordinate('x') };
  } else {
    throw new SignatureKeyError('invalid_key', `${what} must be an EC P-256 or OKP Ed25519 key`);
  }
  // Imported once per key (ADR 0062): the import that proves the point is on the curve is the one verification uses.
  if (importedPublicKey(key) === null) throw new SignatureKeyError('invalid_key', `${what} is not a valid public key`);
  return key;
}

/** The RFC 9421 algorithm a key is used with (§3.3.4 ECDSA P-256 SHA-256, §3.3.6 Ed25519). */
export function signatureAlgorithmOf(key: PublicSigningJwk): SignatureAlgorithm {
  return key.kty === 'EC' ? 'ecdsa-p256-sha256' : 'ed25519';
}
