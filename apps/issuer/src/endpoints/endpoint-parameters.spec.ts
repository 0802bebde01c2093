import { parseAuthorizationDetails } from '@mission/issuer-domain';
import { ProtocolError } from '@mission/issuer-oauth';
import type { ClientRegistration } from '../config/issuer-config.js';
import { OAuthForm } from '../http/oauth-form.js';
import { audienceOf, grantIdOf } from '../tokens/token-claims.js';
import { redirectWith } from '../use-cases/shared/command-context.js';
import { assertCsrf, clearCsrfCookie, cookieValue, csrfCookie, decisionOf, onlyPushedParameters } from './authorize-parameters.js';
import {
  authoritySetOf, codeBinding, missionIntentOf, optionalDpopJkt, refuseRequestUri, registeredRedirectUri,
  requireAuthorizationCodeClient, requireMatchingClientId, requireResponseTypeCode,
} from './par-parameters.js';
import { grantTypeOf, refuseAccessToken } from './token-parameters.js';

const form = (values: Record<string, string>) => OAuthForm.fromQuery(new URLSearchParams(values).toString());
const client = {
  client_id: 'agent', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: ['https://agent.example/cb'], approval_policy: 'auto',
} as unknown as ClientRegistration;
const jkt = 'A'.repeat(43);

function errorOf(run: () => unknown): { status: number; code: string } | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ProtocolError) return { status: error.status, code: error.code };
    throw error;
  }
  return undefined;
}

describe('PAR steps', () => {
  it('RFC 9126 §2.1: refuses request_uri', () => {
    expect(errorOf(() => refuseRequestUri(form({ request_uri: 'x' })))).toEqual({ status: 400, code: 'invalid_request' });
    expect(errorOf(() => refuseRequestUri(form({})))).toBeUndefined();
  });
  it('RFC 6749 §4.1.1: response_type must be code', () => {
    expect(errorOf(() => requireResponseTypeCode(form({ response_type: 'code' })))).toBeUndefined();
    expect(errorOf(() => requireResponseTypeCode(form({ response_type: 'token' })))?.code).toBe('invalid_request');
    expect(errorOf(() => requireResponseTypeCode(form({})))?.code).toBe('invalid_request');
  });
  it('a client_id parameter must be the authenticated client', () => {
    expect(errorOf(() => requireMatchingClientId(form({ client_id: 'agent' }), client))).toBeUndefined();
    expect(errorOf(() => requireMatchingClientId(form({ client_id: 'other' }), client))?.code).toBe('invalid_request');
  });
  it('RFC 6749 §5.2: a client without the authorization_code grant is unauthorized_client', () => {
    expect(errorOf(() => requireAuthorizationCodeClient({ ...client, grant_types: ['refresh_token'] }))).toEqual({ status: 400, code: 'unauthorized_client' });
  });
  it('redirect_uri is required and matched exactly', () => {
    expect(registeredRedirectUri(form({ redirect_uri: 'https://agent.example/cb' }), client)).toBe('https://agent.example/cb');
    expect(errorOf(() => registeredRedirectUri(form({ redirect_uri: 'https://agent.example/cb/' }), client))?.code).toBe('invalid_request');
    expect(errorOf(() => registeredRedirectUri(form({}), client))?.code).toBe('invalid_request');
  });
  it('DESIGN 2.3: mission_intent is strict JSON; malformed or duplicate members are invalid_request', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const good = { intent: { goal: 'g', resources: ['https://r.example'], expires_at: '2026-01-02T00:00:00Z' } };
    expect(missionIntentOf(form({ mission_intent: JSON.stringify(good) }), now).expires_at).toBe('2026-01-02T00:00:00.000Z');
    expect(errorOf(() => missionIntentOf(form({ mission_intent: '{' }), now))?.code).toBe('invalid_request');
    expect(errorOf(() => missionIntentOf(form({ mission_intent: '{"intent":{},"intent":{}}' }), now))?.code).toBe('invalid_request');
    expect(errorOf(() => missionIntentOf(form({ mission_intent: '{"intent":{"goal":"g"}}' }), now))?.code).toBe('invalid_request');
  });
  it('RFC 9396 §5: authorization_details problems are invalid_authorization_details', () => {
    const entry = { type: 'mission_resource_access', resource: 'https://r.example', actions: ['b', 'a'] };
    expect(authoritySetOf(form({ authorization_details: JSON.stringify([entry]) }))).toEqual(parseAuthorizationDetails([entry]));
    expect(errorOf(() => authoritySetOf(form({ authorization_details: '[' })))?.code).toBe('invalid_authorization_details');
    expect(errorOf(() => authoritySetOf(form({ authorization_details: JSON.stringify([{ ...entry, type: 'other' }]) })))?.code).toBe('invalid_authorization_details');
  });
  it('RFC 9449 §10/§10.1: dpop_jkt syntax; both bindings must agree; either alone binds', () => {
    expect(optionalDpopJkt(form({ dpop_jkt: jkt }))).toBe(jkt);
    expect(errorOf(() => optionalDpopJkt(form({ dpop_jkt: 'short' })))?.code).toBe('invalid_request');
    expect(codeBinding(jkt, { jkt })).toBe(jkt);
    expect(codeBinding(undefined, { jkt })).toBe(jkt);
    expect(codeBinding(jkt, undefined)).toBe(jkt);
    expect(codeBinding(undefined, undefined)).toBeUndefined();
    expect(errorOf(() => codeBinding(jkt, { jkt: 'B'.repeat(43) }))?.code).toBe('invalid_dpop_proof');
  });
});

describe('/authorize steps', () => {
  it('DESIGN 2.1: only client_id and request_uri', () => {
    expect(errorOf(() => onlyPushedParameters(form({ client_id: 'a', request_uri: 'b' })))).toBeUndefined();
    expect(errorOf(() => onlyPushedParameters(form({ client_id: 'a', redirect_uri: 'b' })))?.code).toBe('invalid_request');
  });
  it('CSRF cookie: __Host- with Secure on https, a plain name scoped to /authorize on http', () => {
    expect(csrfCookie('https://issuer.example')).toMatchObject({ name: '__Host-authorize_csrf' });
    expect(csrfCookie('https://issuer.example').attributes).toMatch(/Secure; HttpOnly; SameSite=Strict; Path=\/;/);
    expect(csrfCookie('http://localhost:4000').attributes).toMatch(/^HttpOnly; SameSite=Strict; Path=\/authorize;/);
    expect(clearCsrfCookie(csrfCookie('http://localhost:4000'))).toMatch(/Max-Age=0$/);
  });
  it('reads one cookie value; a repeated name counts as absent', () => {
    expect(cookieValue('a=1; authorize_csrf=xyz; b=2', 'authorize_csrf')).toBe('xyz');
    expect(cookieValue('authorize_csrf=1; authorize_csrf=2', 'authorize_csrf')).toBeUndefined();
    expect(cookieValue(undefined, 'authorize_csrf')).toBeUndefined();
  });
  it('double-submit: cookie and field equal and well-formed, else 403', () => {
    const token = 'c'.repeat(43);
    expect(assertCsrf(token, token)).toBe(token);
    expect(errorOf(() => assertCsrf(token, 'd'.repeat(43)))).toEqual({ status: 403, code: 'access_denied' });
    expect(errorOf(() => assertCsrf(undefined, token))?.code).toBe('access_denied');
    expect(errorOf(() => assertCsrf('x', 'x'))?.code).toBe('access_denied');
  });
  it('decision is approve or decline', () => {
    expect(decisionOf(form({ decision: 'approve' }))).toBe('approve');
    expect(errorOf(() => decisionOf(form({ decision: 'maybe' })))?.code).toBe('invalid_request');
  });
  it('RFC 9207 / RFC 6749 §4.1.2: response parameters join the redirect URI query', () => {
    expect(redirectWith('https://a.example/cb?x=1', { code: 'c', iss: 'https://i.example' })).toBe('https://a.example/cb?x=1&code=c&iss=https%3A%2F%2Fi.example');
  });
});

describe('/token and /revoke steps', () => {
  it('RFC 6749 §5.2: unknown grant → unsupported_grant_type; unregistered → unauthorized_client', () => {
    expect(grantTypeOf(form({ grant_type: 'refresh_token' }), client)).toBe('refresh_token');
    expect(errorOf(() => grantTypeOf(form({ grant_type: 'password' }), client))?.code).toBe('unsupported_grant_type');
    // DESIGN 2.1: the child creation grant is supported, but only for clients registered for it.
    expect(errorOf(() => grantTypeOf(form({ grant_type: 'urn:ietf:params:oauth:grant-type:mission-child-creation' }), client))?.code).toBe('unauthorized_client');
    expect(grantTypeOf(form({ grant_type: 'urn:ietf:params:oauth:grant-type:mission-child-creation' }), { ...client, grant_types: ['urn:ietf:params:oauth:grant-type:mission-child-creation'] })).toBe(
      'urn:ietf:params:oauth:grant-type:mission-child-creation',
    );
    expect(errorOf(() => grantTypeOf(form({ grant_type: 'refresh_token' }), { ...client, grant_types: ['authorization_code'] }))?.code).toBe('unauthorized_client');
    expect(errorOf(() => grantTypeOf(form({}), client))?.code).toBe('invalid_request');
  });
  it('a token that is not `<grant_id>.<secret>` is invalid_grant', () => {
    expect(errorOf(() => grantIdOf('nope', 'refresh token'))?.code).toBe('invalid_grant');
    expect(grantIdOf(`grt_${'A'.repeat(22)}.${'B'.repeat(42)}A`, 'refresh token')).toBe(`grt_${'A'.repeat(22)}`);
  });
  it('RFC 9068 aud: resources of the authority set, once each', () => {
    const set = parseAuthorizationDetails([
      { type: 'mission_resource_access', resource: 'https://a.example', actions: ['x'] },
      { type: 'mission_resource_access', resource: 'https://b.example', actions: ['y'] },
      { type: 'mission_resource_access', resource: 'https://a.example', actions: ['z'] },
    ]);
    expect(audienceOf(set)).toEqual(['https://a.example', 'https://b.example']);
  });
  it('RFC 7009 §2.2.1: access tokens are unsupported_token_type; other unknown strings pass through (answered 200)', () => {
    expect(errorOf(() => refuseAccessToken('aaa.bbb.ccc', undefined))?.code).toBe('unsupported_token_type');
    expect(errorOf(() => refuseAccessToken('whatever', 'access_token'))?.code).toBe('unsupported_token_type');
    expect(errorOf(() => refuseAccessToken('whatever', undefined))).toBeUndefined();
  });
});
