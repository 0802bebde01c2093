import type { JWK } from 'jose';
import { ASYMMETRIC_ALGORITHMS } from '../../errors/dpop-algorithms.js';
import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { candidateKeys, verifyCompactJws } from '../../pipeline/jws-signature.js';
import type { ClientAuthenticationContext } from '../context.js';
import { ASSERTION_NOT_VERIFIED } from './registered-client.js';

// RFC 7523 §3 item 9: the JWT is signed by the client with a key of its registered jwks (by kid, else every candidate).
export function assertionSignature({ assertion, header, client }: ClientAuthenticationContext): void {
  const keys = candidateKeys(client!.jwks.keys as readonly JWK[], header!);
  if (!keys.some((key) => verifyCompactJws(assertion!, key, ASYMMETRIC_ALGORITHMS, header))) throw new InvalidClientError(ASSERTION_NOT_VERIFIED);
}
