import { InvalidTokenError } from '../../errors/invalid-token.error.js';
import { isJsonObject, isNonEmptyString, isNumericDate } from '../../pipeline/compact-jwt.js';
import type { AccessTokenContext } from '../context.js';

// RFC 9068 §2.2 (iss, exp, aud, sub, client_id, iat, jti), RFC 9449 §6.1 (cnf.jkt) and DESIGN 2.3 (mission, authorization_details) are present.
export function requiredClaims({ claims }: AccessTokenContext): void {
  const { exp, aud, sub, iat, jti, client_id, cnf, mission, authorization_details } = claims! as Record<string, unknown>;
  const audiences = Array.isArray(aud) ? aud : [aud];
  const valid =
    isNumericDate(exp) &&
    isNumericDate(iat) &&
    audiences.length > 0 &&
    audiences.every(isNonEmptyString) &&
    isNonEmptyString(sub) &&
    isNonEmptyString(jti) &&
    isNonEmptyString(client_id) &&
    isJsonObject(cnf) &&
    isNonEmptyString(cnf['jkt']) &&
    isJsonObject(mission) &&
    isNonEmptyString(mission['id']) &&
    isNonEmptyString(mission['issuer']) &&
    isNonEmptyString(mission['authority_hash']) &&
    Array.isArray(authorization_details);
  if (!valid) throw new InvalidTokenError('the access token lacks required claims');
}
