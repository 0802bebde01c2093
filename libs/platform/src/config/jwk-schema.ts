import { createPublicKey } from 'node:crypto';
import { describeValue } from './config-error.js';
import { array, JsonPath, type Schema } from './schema.js';

/** A public verification key as the services accept it: EC P-256 (ES256) or OKP Ed25519 (EdDSA). */
export type PublicJwk =
  | { readonly kty: 'EC'; readonly crv: 'P-256'; readonly x: string; readonly y: string; readonly kid?: string; readonly alg?: 'ES256'; readonly use?: 'sig' }
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519'; readonly x: string; readonly kid?: string; readonly alg?: 'EdDSA' | 'Ed25519'; readonly use?: 'sig' };

export interface PublicJwks {
  readonly keys: readonly PublicJwk[];
}

/** Members that only private (or symmetric) keys carry; any of them in a registry is a leaked secret. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;
const KID = /^[\x21-\x7e]{1,128}$/;

export const publicJwk: Schema<PublicJwk> = (value, at) => {
  if (value === undefined) return at.fail('is required');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return at.fail(`must be a JWK object, got ${describeValue(value)}`);
  const jwk = value as Record<string, unknown>;
  for (const member of PRIVATE_MEMBERS) {
    if (Object.hasOwn(jwk, member)) at.key(member).fail('private key material must not be configured here: give the public key only');
  }
  if (jwk['kty'] !== 'EC' && jwk['kty'] !== 'OKP') return at.key('kty').fail(`must be "EC" or "OKP", got ${describeValue(jwk['kty'])}`);
  const expectedCurve = jwk['kty'] === 'EC' ? 'P-256' : 'Ed25519';
  if (jwk['crv'] !== expectedCurve) at.key('crv').fail(`must be "${expectedCurve}" for kty "${jwk['kty']}", got ${describeValue(jwk['crv'])}`);
  const coordinates = jwk['kty'] === 'EC' ? ['x', 'y'] : ['x'];
  for (const name of coordinates) {
    const coordinate = jwk[name];
    if (typeof coordinate !== 'string' || !BASE64URL_32_BYTES.test(coordinate)) {
      at.key(name).fail(`must be the 32-byte coordinate in unpadded base64url (43 characters), got ${describeValue(coordinate)}`);
    }
  }
  if (jwk['kty'] === 'OKP' && Object.hasOwn(jwk, 'y')) at.key('y').fail('must not be present for kty "OKP"');
  const allowedAlgs = jwk['kty'] === 'EC' ? ['ES256'] : ['EdDSA', 'Ed25519'];
  if (jwk['alg'] !== undefined && !allowedAlgs.includes(jwk['alg'] as string)) {
    at.key('alg').fail(`must be ${allowedAlgs.map((a) => `"${a}"`).join(' or ')} for this key, got ${describeValue(jwk['alg'])}`);
  }
  if (jwk['use'] !== undefined && jwk['use'] !== 'sig') at.key('use').fail(`must be "sig", got ${describeValue(jwk['use'])}`);
  if (jwk['kid'] !== undefined && (typeof jwk['kid'] !== 'string' || !KID.test(jwk['kid']))) {
    at.key('kid').fail(`must be 1..128 printable ASCII characters, got ${describeValue(jwk['kid'])}`);
  }
  const key = pickPublicMembers(jwk);
  assertUsableKey(key, at);
  return key;
};

/** Keeps only the members we understand, so nothing unexpected travels further. */
function pickPublicMembers(jwk: Record<string, unknown>): PublicJwk {
  const optional = {
    ...(jwk['kid'] !== undefined ? { kid: jwk['kid'] as string } : {}),
    ...(jwk['alg'] !== undefined ? { alg: jwk['alg'] } : {}),
    ...(jwk['use'] !== undefined ? { use: 'sig' as const } : {}),
  };
  if (jwk['kty'] === 'EC') {
    return { kty: 'EC', crv: 'P-256', x: jwk['x'] as string, y: jwk['y'] as string, ...optional } as PublicJwk;
  }
  return { kty: 'OKP', crv: 'Ed25519', x: jwk['x'] as string, ...optional } as PublicJwk;
}

/** Well-formed base64url is not enough: an EC point must lie on the curve, or every signature check fails later. */
function assertUsableKey(jwk: PublicJwk, at: JsonPath): void {
  try {
    createPublicKey({ key: { ...jwk }, format: 'jwk' });
  } catch {
    at.fail(`is not a valid ${jwk.crv} public key (the coordinates do not form a point on the curve)`);
  }
}

export interface JwksRules {
  /** A key set with no key can verify nothing; allow it only where keys may be fetched elsewhere. */
  readonly minKeys?: number;
}

export function publicJwks(rules: JwksRules = {}): Schema<PublicJwks> {
  const keys = array(publicJwk, { minItems: rules.minKeys ?? 1, maxItems: 100 });
  return (value, at) => {
    if (value === undefined) return at.fail('is required');
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return at.fail(`must be a JWK Set object {"keys": [...]}, got ${describeValue(value)}`);
    const set = value as Record<string, unknown>;
    for (const member of Object.keys(set)) {
      if (member !== 'keys') at.key(member).fail('unknown member of a JWK Set (only "keys" is allowed)');
    }
    const parsed = keys(set['keys'], at.key('keys'));
    const kids = new Map<string, number>();
    parsed.forEach((key, position) => {
      if (key.kid === undefined) return;
      const first = kids.get(key.kid);
      if (first !== undefined) at.key('keys').index(position).key('kid').fail(`duplicate kid ${JSON.stringify(key.kid)} (already at keys[${first}])`);
      kids.set(key.kid, position);
    });
    // Frozen: a registered key set never changes while the service runs, and verifiers may remember what they
    // selected from it by its identity (candidateKeys in issuer-oauth).
    return Object.freeze({ keys: Object.freeze(parsed.map(freezeJwk)) });
  };
}

function freezeJwk<T extends object>(jwk: T): T {
  for (const member of Object.values(jwk)) if (typeof member === 'object' && member !== null) Object.freeze(member);
  return Object.freeze(jwk);
}
