import { importedPublicKey } from '@mission/http-signatures';
import { verify, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { isJsonObject } from './compact-jwt.js';

/**
 * JWS signature checks for the three verifications every request makes (client assertion, DPoP proof,
 * access token) on node:crypto's synchronous `verify` with `KeyObject`s imported once, instead of jose's
 * `compactVerify`, which in jose 6 always goes through WebCrypto: a promise job and a key re-wrap per call,
 * about 110 µs of CPU more per ES256 verification measured here (ADR 0035). jose still parses headers and
 * claims, imports nothing on this path, and stays the oracle of the differential tests (jws-signature.spec.ts).
 *
 * Only the algorithms the registries accept (ADR 0006): ES256 (P-256, IEEE P1363 signatures) and EdDSA /
 * Ed25519 (RFC 8037, RFC 9864). Anything else is refused, never guessed.
 */
const KEY_FOR_ALG: Readonly<Record<string, { readonly kty: string; readonly crv: string; readonly nodeType: string; readonly digest: string | null }>> = {
  ES256: { kty: 'EC', crv: 'P-256', nodeType: 'ec', digest: 'sha256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519', nodeType: 'ed25519', digest: null },
  Ed25519: { kty: 'OKP', crv: 'Ed25519', nodeType: 'ed25519', digest: null },
};

/**
 * The JWK as a node:crypto public key, or null when it is not a usable public key. Imported from its RFC 7638
 * members only (private members play no part) and cached per key in the process-wide bounded cache both
 * services share (ADR 0062), failures too: a client reuses its keys for thousands of requests.
 */
export function publicKeyOf(jwk: JWK): KeyObject | null {
  return importedPublicKey(jwk)?.key ?? null;
}

/** Whether the key is of the type the algorithm signs with (RFC 7518 §3.4, RFC 8037 §3.1): an RSA key never passes for ES256. */
export function keyFitsAlgorithm(key: KeyObject, alg: string): boolean {
  const expected = KEY_FOR_ALG[alg];
  if (expected === undefined || key.type !== 'public' || key.asymmetricKeyType !== expected.nodeType) return false;
  return expected.nodeType !== 'ec' || key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
}

/**
 * RFC 7515 §5.2: verifies a compact JWS with one key. True only when the protected header is a JSON object
 * whose `alg` is `alg` and one of `allowed`, it carries no `crit` (we understand no extension, §4.1.11), the
 * key fits the algorithm, and the signature over `header.payload` verifies. `decodedHeader`, when given, is this
 * token's protected header as the pipeline already decoded it (jose's `decodeProtectedHeader`, the same
 * `JSON.parse` of the same segment), so it is not decoded a second time per key tried (issue 15).
 */
export function verifyCompactJws(token: string, key: KeyObject, allowed: readonly string[], decodedHeader?: unknown): boolean {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first <= 0 || second <= first + 1 || second === token.length - 1 || token.indexOf('.', second + 1) !== -1) return false;
  const alg = decodedHeader === undefined ? protectedAlgorithm(token.slice(0, first)) : algorithmOf(decodedHeader);
  if (alg === undefined || !allowed.includes(alg) || !keyFitsAlgorithm(key, alg)) return false;
  const signature = token.slice(second + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(signature)) return false;
  try {
    const data = Buffer.from(token.slice(0, second), 'ascii');
    const bytes = Buffer.from(signature, 'base64url');
    return alg === 'ES256'
      ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, bytes)
      : verify(null, data, key, bytes);
  } catch {
    return false;
  }
}

/**
 * RFC 7517 §4 / RFC 7515 §4.1.4: the keys of a set that may have made this signature — the header's `kid`
 * when it names one, a signing key (`use` absent or `sig`, `key_ops` absent or with `verify`), of the
 * algorithm's key type, and `alg` absent or equal. The same candidates jose's local key set selects.
 */
export function candidateKeys(keys: readonly JWK[], header: { readonly alg?: unknown; readonly kid?: unknown }): readonly KeyObject[] {
  const alg = typeof header.alg === 'string' ? header.alg : undefined;
  const expected = alg === undefined ? undefined : KEY_FOR_ALG[alg];
  if (expected === undefined) return [];
  // A frozen key set (a client's registered jwks, frozen by the config schema) cannot change: its candidates for
  // an (alg, kid) are selected once. Only non-empty selections are kept, so a caller naming unknown kids cannot
  // grow the cache: it holds at most one entry per key and algorithm, plus one per algorithm without kid.
  const kid = header.kid;
  const cacheKey = !isFrozenKeySet(keys) ? undefined : kid === undefined ? alg! : typeof kid === 'string' ? `${alg!}\u0000${kid}` : undefined;
  let selections = cacheKey === undefined ? undefined : SELECTIONS.get(keys);
  const known = cacheKey === undefined ? undefined : selections?.get(cacheKey);
  if (known !== undefined) return known;
  const candidates = selectCandidates(keys, alg!, expected, header);
  if (cacheKey !== undefined && candidates.length > 0) {
    if (selections === undefined) SELECTIONS.set(keys, (selections = new Map()));
    selections.set(cacheKey, Object.freeze(candidates));
  }
  return candidates;
}

/** Per frozen key-set array (dropped with it): the candidates already selected, by alg and kid. */
const SELECTIONS = new WeakMap<readonly JWK[], Map<string, readonly KeyObject[]>>();

/** How many selections are remembered for this key set (tests: the bound). */
export function candidateSelectionsRemembered(keys: readonly JWK[]): number {
  return SELECTIONS.get(keys)?.size ?? 0;
}

/** Freezing cannot be undone, so a set seen frozen (array, keys and their members) stays what it is. */
function isFrozenKeySet(keys: readonly JWK[]): boolean {
  if (SELECTIONS.has(keys)) return true;
  return Object.isFrozen(keys) && keys.every((jwk) => Object.isFrozen(jwk) && Object.values(jwk).every((member) => typeof member !== 'object' || member === null || Object.isFrozen(member)));
}

function selectCandidates(keys: readonly JWK[], alg: string, expected: { readonly kty: string; readonly crv: string }, header: { readonly kid?: unknown }): KeyObject[] {
  const candidates: KeyObject[] = [];
  for (const jwk of keys) {
    if (header.kid !== undefined && jwk.kid !== header.kid) continue;
    if (jwk.kty !== expected.kty || jwk.crv !== expected.crv) continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    if (jwk.key_ops !== undefined && !jwk.key_ops.includes('verify')) continue;
    if (jwk.alg !== undefined && jwk.alg !== alg) continue;
    const key = publicKeyOf(jwk);
    if (key !== null) candidates.push(key);
  }
  return candidates;
}

function protectedAlgorithm(encodedHeader: string): string | undefined {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return algorithmOf(header);
}

function algorithmOf(header: unknown): string | undefined {
  if (!isJsonObject(header) || Object.hasOwn(header, 'crit') || typeof header['alg'] !== 'string') return undefined;
  return header['alg'];
}
