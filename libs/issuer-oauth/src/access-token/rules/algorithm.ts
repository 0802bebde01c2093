import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { ACCESS_TOKEN_ALG } from '../claims.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4 (alg none refused) / RFC 8725 §3.1: the alg is the one the issuer signs with, ES256.
export function algorithm({ header }: AccessTokenContext): void {
  if (header!.alg !== ACCESS_TOKEN_ALG) throw new InvalidTokenError('the access token is not signed with ES256');
}
