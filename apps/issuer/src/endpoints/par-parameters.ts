import {
  InvalidAuthorizationDetailsError as DomainInvalidAuthorizationDetailsError,
  parseAuthorizationDetails,
  parseMissionIntent,
  type AuthoritySet,
  type MissionIntent,
} from '@mission/issuer-domain';
import { assertDpopBinding, InvalidAuthorizationDetailsError, InvalidRequestError, UnauthorizedClientError } from '@mission/issuer-oauth';
import { parseStrictJson, StrictJsonError } from '@mission/strict-json';
import type { ClientRegistration } from '../config/issuer-config.js';
import type { OAuthForm } from '../http/oauth-form.js';
import { protocolErrorOf } from '../errors/domain-refusals.js';

/** The longest mission this issuer grants (mission_intent.intent.expires_at − now). */
export const MAX_MISSION_LIFETIME_SECONDS = 30 * 24 * 3600;
/** The client's opaque `state` is echoed back; bounded so it cannot bloat the stored request. */
export const MAX_STATE_LENGTH = 1024;
/** A JWK SHA-256 thumbprint (RFC 7638): 43 base64url characters. */
const JKT = /^[A-Za-z0-9_-]{43}$/;

// RFC 9126 §2.1: the request_uri parameter MUST NOT be provided in a pushed request.
export function refuseRequestUri(form: OAuthForm): void {
  if (form.has('request_uri')) throw new InvalidRequestError('request_uri must not be sent to the pushed authorization request endpoint');
}

// RFC 6749 §4.1.1 / DESIGN 2.1: the only response type is `code`.
export function requireResponseTypeCode(form: OAuthForm): void {
  if (form.required('response_type', 64) !== 'code') throw new InvalidRequestError('response_type must be code');
}

// RFC 9126 §2.1 + RFC 7523 §3: a client_id in the body must be the authenticated client.
export function requireMatchingClientId(form: OAuthForm, client: ClientRegistration): void {
  const clientId = form.optional('client_id', 255);
  if (clientId !== undefined && clientId !== client.client_id) throw new InvalidRequestError('client_id does not match the authenticated client');
}

// RFC 6749 §5.2 unauthorized_client: the client is not registered for the authorization_code grant (DESIGN 2.2).
export function requireAuthorizationCodeClient(client: ClientRegistration): void {
  if (!client.grant_types.includes('authorization_code')) throw new UnauthorizedClientError('the client is not registered for the authorization_code grant');
}

// RFC 6749 §3.1.2.2 / OAuth 2.1 §2.3.1: redirect_uri is required and compared exactly with a registered one.
export function registeredRedirectUri(form: OAuthForm, client: ClientRegistration): string {
  const redirectUri = form.required('redirect_uri', 2048);
  if (!client.redirect_uris.includes(redirectUri)) throw new InvalidRequestError('redirect_uri is not registered for this client');
  return redirectUri;
}

// RFC 6749 §4.1.1: optional opaque state, bounded.
export function optionalState(form: OAuthForm): string | undefined {
  return form.optional('state', MAX_STATE_LENGTH);
}

// DESIGN 2.3: mission_intent is strict JSON with a closed member set; malformed → invalid_request.
export function missionIntentOf(form: OAuthForm, now: Date): MissionIntent {
  const text = form.required('mission_intent', 65_536);
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidRequestError(`mission_intent: ${error.message}`);
    throw error;
  }
  try {
    return parseMissionIntent(value, { now, maxLifetimeSeconds: MAX_MISSION_LIFETIME_SECONDS });
  } catch (error) {
    throw protocolErrorOf(error);
  }
}

// RFC 9396 §2, §5 / DESIGN 2.3: authorization_details is strict JSON of mission_resource_access entries; anything else → invalid_authorization_details.
export function authoritySetOf(form: OAuthForm): AuthoritySet {
  const text = form.required('authorization_details', 65_536);
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (error) {
    if (error instanceof StrictJsonError) throw new InvalidAuthorizationDetailsError(`authorization_details: ${error.message}`);
    throw error;
  }
  try {
    return parseAuthorizationDetails(value);
  } catch (error) {
    if (error instanceof DomainInvalidAuthorizationDetailsError) throw new InvalidAuthorizationDetailsError(error.message);
    throw error;
  }
}

// RFC 9449 §10: dpop_jkt is a JWK SHA-256 thumbprint.
export function optionalDpopJkt(form: OAuthForm): string | undefined {
  const jkt = form.optional('dpop_jkt', 64);
  if (jkt !== undefined && !JKT.test(jkt)) throw new InvalidRequestError('dpop_jkt must be a JWK SHA-256 thumbprint (43 base64url characters)');
  return jkt;
}

// RFC 9449 §10 / §10.1: the code is bound to dpop_jkt or the PAR proof's key; both present must agree.
export function codeBinding(dpopJkt: string | undefined, proof: { readonly jkt: string } | undefined): string | undefined {
  if (dpopJkt !== undefined && proof !== undefined) assertDpopBinding(proof, dpopJkt, 'dpop_jkt');
  return dpopJkt ?? proof?.jkt;
}
