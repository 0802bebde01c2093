import { compactVerify, createLocalJWKSet, errors, type JSONWebKeySet, type JWK, type LocalJWKSet } from 'jose';
import { ASYMMETRIC_ALGORITHMS } from '../../errors/dpop-algorithms.js';
import { InvalidClientError } from '../../errors/invalid-client.error.js';
import type { RegisteredClient } from '../client-registry.js';
import type { ClientAuthenticationContext } from '../context.js';
import { ASSERTION_NOT_VERIFIED } from './registered-client.js';

/** One key set per registration object, so imported keys are reused across requests. */
const keySets = new WeakMap<RegisteredClient['jwks'], LocalJWKSet>();

function keySetOf(client: RegisteredClient): LocalJWKSet {
  let keySet = keySets.get(client.jwks);
  if (!keySet) {
    keySet = createLocalJWKSet({ keys: client.jwks.keys.map((key) => ({ ...key }) as JWK) } as JSONWebKeySet);
    keySets.set(client.jwks, keySet);
  }
  return keySet;
}

const options = { algorithms: [...ASYMMETRIC_ALGORITHMS] };

// RFC 7523 §3 item 9: the JWT is signed by the client with a key of its registered jwks (by kid, else every candidate).
export async function assertionSignature({ assertion, client }: ClientAuthenticationContext): Promise<void> {
  try {
    await compactVerify(assertion!, keySetOf(client!), options);
  } catch (error) {
    if (error instanceof errors.JWKSMultipleMatchingKeys) {
      for await (const key of error) {
        if (await compactVerify(assertion!, key, options).then(() => true, () => false)) return;
      }
    }
    throw new InvalidClientError(ASSERTION_NOT_VERIFIED);
  }
}
