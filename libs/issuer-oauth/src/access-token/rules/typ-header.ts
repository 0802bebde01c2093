import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { ACCESS_TOKEN_TYP } from '../claims.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §4: the typ header is at+jwt (or application/at+jwt), so an ID token or a DPoP proof is never taken for an access token.
export function typHeader({ header }: AccessTokenContext): void {
  const typ = header!.typ?.toLowerCase();
  if (typ !== ACCESS_TOKEN_TYP && typ !== `application/${ACCESS_TOKEN_TYP}`) throw new InvalidTokenError('the access token has the wrong typ');
}
