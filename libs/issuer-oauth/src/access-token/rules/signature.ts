import { compactVerify, createLocalJWKSet, type JSONWebKeySet, type LocalJWKSet } from 'jose';
import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { ACCESS_TOKEN_ALG } from '../claims.js';
import type { AccessTokenContext } from '../context.js';

const keySets = new WeakMap<JSONWebKeySet, LocalJWKSet>();

// RFC 9068 §4 / RFC 7515 §5.2: the signature verifies with the issuer's published key named by kid.
export async function signature({ token, publicKeys }: AccessTokenContext): Promise<void> {
  let keySet = keySets.get(publicKeys);
  if (!keySet) keySets.set(publicKeys, (keySet = createLocalJWKSet(publicKeys)));
  try {
    await compactVerify(token, keySet, { algorithms: [ACCESS_TOKEN_ALG] });
  } catch {
    throw new InvalidTokenError('the access token signature is invalid');
  }
}
