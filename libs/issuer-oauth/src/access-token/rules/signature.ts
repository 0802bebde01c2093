import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { candidateKeys, verifyCompactJws } from '../../pipeline/jws-signature.js';
import { ACCESS_TOKEN_ALG } from '../claims.js';
import type { AccessTokenContext } from '../context.js';

const ALGORITHMS = [ACCESS_TOKEN_ALG];

// RFC 9068 §4 / RFC 7515 §5.2: the signature verifies with the issuer's published key named by kid.
export function signature({ token, header, publicKeys }: AccessTokenContext): void {
  if (!candidateKeys(publicKeys.keys, header!).some((key) => verifyCompactJws(token, key, ALGORITHMS, header))) {
    throw new InvalidTokenError('the access token signature is invalid');
  }
}
