import { InvalidDpopProofError } from '../../errors/invalid-dpop-proof.error.js';
import { isNonEmptyString, isNumericDate } from '../../pipeline/compact-jwt.js';
import type { DpopProofContext } from '../context.js';

const MAX_JTI_LENGTH = 256;

// RFC 9449 §4.3 step 3 / §4.2: jti, htm, htu and iat are present (ath too when a token is presented); nonce is step 10's.
export function requiredClaims({ claims, request }: DpopProofContext): void {
  const { jti, htm, htu, iat, ath } = claims! as Record<string, unknown>;
  if (!isNonEmptyString(jti) || jti.length > MAX_JTI_LENGTH) throw new InvalidDpopProofError('DPoP proof must contain jti');
  if (!isNonEmptyString(htm)) throw new InvalidDpopProofError('DPoP proof must contain htm');
  if (!isNonEmptyString(htu)) throw new InvalidDpopProofError('DPoP proof must contain htu');
  if (!isNumericDate(iat)) throw new InvalidDpopProofError('DPoP proof must contain iat');
  if (request.accessToken !== undefined && !isNonEmptyString(ath)) throw new InvalidDpopProofError('DPoP proof must contain ath');
}
