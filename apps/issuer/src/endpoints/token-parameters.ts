import { ValidateBy } from 'class-validator';
import { grantIdOfToken, REQUEST_URI_PREFIX } from '@mission/issuer-domain';
import { InvalidGrantError, UnauthorizedClientError, UnsupportedGrantTypeError, UnsupportedTokenTypeError } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../config/issuer-config.js';
import { answeredWith, FormParameter, formParameters } from '../http/form-parameters.js';
import type { OAuthForm } from '../http/oauth-form.js';

export const CHILD_CREATION_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:mission-child-creation';
/** DESIGN 2.1: the grants /token answers. */
export const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token', CHILD_CREATION_GRANT_TYPE] as const;
export type SupportedGrantType = (typeof SUPPORTED_GRANT_TYPES)[number];

/** `POST /token`: the grant type, read first (RFC 6749 §5.2). */
class GrantTypeForm {
  @FormParameter(128, { required: true })
  grant_type: string | undefined = undefined;
}

/** `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export class AuthorizationCodeForm {
  @FormParameter(256, { required: true })
  code: string | undefined = undefined;

  @FormParameter(2048, { required: true })
  redirect_uri: string | undefined = undefined;

  @FormParameter(256, { doc: { description: 'RFC 7636 PKCE verifier of the S256 challenge sent at PAR' } })
  code_verifier: string | undefined = undefined;
}

/** `grant_type=refresh_token` (RFC 6749 §6). */
export class RefreshTokenForm {
  @FormParameter(256, { required: true })
  refresh_token: string | undefined = undefined;
}

const CHILD_GRANT_REFUSAL = answeredWith((description) => new InvalidGrantError(description));

/** DESIGN 2.4: the child creation grant: a `request_uri` that carries one of our grant tokens; anything else is invalid_grant. */
export class ChildCreationGrantForm {
  @ValidateBy(
    { name: 'childCreationGrant', validator: { validate: (value: unknown) => typeof value === 'string' && grantIdOfToken(childGrantToken(value)) !== undefined } },
    { message: 'request_uri is not a Child Mission creation grant of this issuer', ...CHILD_GRANT_REFUSAL },
  )
  @FormParameter(256, { required: true })
  request_uri: string | undefined = undefined;
}

/** `POST /revoke` (RFC 7009 §2.1). */
export class RevocationForm {
  @FormParameter(4096, { required: true })
  token: string | undefined = undefined;

  @FormParameter(64, { doc: { enum: ['refresh_token', 'access_token'], description: 'Access tokens are not revocable here (`unsupported_token_type`)' } })
  token_type_hint: string | undefined = undefined;
}

function childGrantToken(requestUri: string): string {
  return requestUri.startsWith(REQUEST_URI_PREFIX) ? requestUri.slice(REQUEST_URI_PREFIX.length) : '';
}

// RFC 6749 §5.2: an unknown grant is unsupported_grant_type; one the client is not registered for is unauthorized_client.
export function grantTypeOf(form: OAuthForm, client: ClientRegistration): SupportedGrantType {
  const grantType = formParameters(GrantTypeForm, form).grant_type!;
  if (!(SUPPORTED_GRANT_TYPES as readonly string[]).includes(grantType)) throw new UnsupportedGrantTypeError(`grant_type ${grantType.length <= 64 ? grantType : '(too long)'} is not supported`);
  if (!(client.grant_types as readonly string[]).includes(grantType)) throw new UnauthorizedClientError(`the client is not registered for the ${grantType} grant`);
  return grantType as SupportedGrantType;
}

// DESIGN 2.4: redemption presents the request_uri of a Child Mission creation; anything else is invalid_grant.
export function childGrantTokenOf(form: OAuthForm): string {
  return childGrantToken(formParameters(ChildCreationGrantForm, form).request_uri!);
}

const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

// RFC 7009 §2.2.1: we revoke refresh tokens only; a JWT access token (short-lived, mission-checked at introspection) is unsupported.
export function refuseAccessToken(token: string, hint: string | undefined): void {
  if (grantIdOfToken(token) !== undefined) return;
  if (hint === 'access_token' || JWS_COMPACT.test(token)) throw new UnsupportedTokenTypeError('only refresh tokens can be revoked; access tokens expire within minutes');
}

