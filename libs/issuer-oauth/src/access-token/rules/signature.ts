import { compactVerify, createLocalJWKSet, type JSONWebKeySet, type LocalJWKSet } from 'jose';
import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { BoundedCache } from '../../pipeline/bounded-cache.js';
import { ACCESS_TOKEN_ALG } from '../claims.js';
import type { AccessTokenContext } from '../context.js';

/**
 * Key sets by content: callers pass a fresh `{keys}` object per call (SigningKeys.jwks() copies), so an identity-keyed
 * cache would import the issuer's own key again on every verification. The issuer has one or two keys: a few entries.
 */
const keySets = new BoundedCache<LocalJWKSet>(16);

function keySetFor(publicKeys: JSONWebKeySet): LocalJWKSet {
  const cacheKey = JSON.stringify(publicKeys.keys);
  let keySet = keySets.get(cacheKey);
  if (keySet === undefined) keySets.set(cacheKey, (keySet = createLocalJWKSet(publicKeys)));
  return keySet;
}

// RFC 9068 §4 / RFC 7515 §5.2: the signature verifies with the issuer's published key named by kid.
export async function signature({ token, publicKeys }: AccessTokenContext): Promise<void> {
  try {
    await compactVerify(token, keySetFor(publicKeys), { algorithms: [ACCESS_TOKEN_ALG] });
  } catch {
    throw new InvalidTokenError('the access token signature is invalid');
  }
}
