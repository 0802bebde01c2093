import { grantIdOfToken, missionExists, type AuthoritySet, type MissionState } from '@mission/issuer-domain';
import { InvalidGrantError, ProtocolError, type AuthorizationDetail, UnauthorizedClientError, UnsupportedGrantTypeError } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../config/issuer-config.js';
import type { OAuthForm } from '../http/oauth-form.js';

export const CHILD_CREATION_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:mission-child-creation';
/** DESIGN 2.1: the grants /token answers. */
export const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token', CHILD_CREATION_GRANT_TYPE] as const;
export type SupportedGrantType = (typeof SUPPORTED_GRANT_TYPES)[number];

// RFC 6749 §5.2: an unknown grant is unsupported_grant_type; one the client is not registered for is unauthorized_client.
export function grantTypeOf(form: OAuthForm, client: ClientRegistration): SupportedGrantType {
  const grantType = form.required('grant_type', 128);
  if (!(SUPPORTED_GRANT_TYPES as readonly string[]).includes(grantType)) throw new UnsupportedGrantTypeError(`grant_type ${grantType.length <= 64 ? grantType : '(too long)'} is not supported`);
  if (!(client.grant_types as readonly string[]).includes(grantType)) throw new UnauthorizedClientError(`the client is not registered for the ${grantType} grant`);
  return grantType as SupportedGrantType;
}

// RFC 6749 §5.2 + grant-ids.ts: a code or refresh token names its grant stream; anything else is invalid_grant.
export function grantIdOf(token: string, what: 'authorization code' | 'refresh token' | 'child creation grant'): string {
  const grantId = grantIdOfToken(token);
  if (grantId === undefined) throw new InvalidGrantError(`the ${what} is invalid`);
  return grantId;
}

/** RFC 9068 §3 `aud`: the resource servers of the approved Authority Set, in approved order, once each. */
export function audienceOf(authoritySet: AuthoritySet): string[] {
  return [...new Set(authoritySet.map((entry) => entry.resource))];
}

/** RFC 9396 §2: the approved Authority Set entries as the token's `authorization_details` (plain JSON objects). */
export function authorizationDetailsOf(authoritySet: AuthoritySet): AuthorizationDetail[] {
  return authoritySet.map((entry): AuthorizationDetail => ({ ...entry }));
}

/** RFC 9068 §2.2 `sub`: the person who approved, or the client itself when its policy did. */
export function subjectOf(mission: MissionState): string {
  if (!missionExists(mission)) throw new InvalidGrantError('the grant has no mission');
  return mission.approvedBy.role === 'person' ? mission.approvedBy.id : mission.clientId;
}

/** A refresh token / authorization code, not a JWT: `unsupported_token_type` (RFC 7009 §2.2.1) for access tokens. */
export class UnsupportedTokenTypeError extends ProtocolError {
  constructor(description: string) {
    super(400, 'unsupported_token_type', description);
  }
}

const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

// RFC 7009 §2.2.1: we revoke refresh tokens only; a JWT access token (short-lived, mission-checked at introspection) is unsupported.
export function refuseAccessToken(token: string, hint: string | undefined): void {
  if (grantIdOfToken(token) !== undefined) return;
  if (hint === 'access_token' || JWS_COMPACT.test(token)) throw new UnsupportedTokenTypeError('only refresh tokens can be revoked; access tokens expire within minutes');
}
