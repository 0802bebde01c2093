import { InvalidRequestError as BaseInvalidRequestError, ProtocolError } from '@mission/protocol-errors';
import { CHILD_DENIAL_REASONS as MISSION_DENIAL_REASONS, OAUTH_ERROR_FOR_DENIAL as MISSION_DENIAL_ERROR_CODE } from '@mission/issuer-domain';
import {
  AccessDeniedError,
  ConflictError,
  InvalidAuthorizationDetailsError,
  InvalidClientError,
  InvalidDpopProofError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTokenError,
  NotFoundError,
  UnauthorizedClientError,
  UnsupportedGrantTypeError,
  UseDpopNonceError,
  withMissionDenialReason,
} from './index.js';

describe('one ProtocolError subclass per OAuth error code', () => {
  it.each<[string, ProtocolError, number, string]>([
    ['RFC 6749 §5.2', new InvalidRequestError('x'), 400, 'invalid_request'],
    ['RFC 6749 §5.2', new InvalidClientError(), 401, 'invalid_client'],
    ['RFC 6749 §5.2', new InvalidGrantError('x'), 400, 'invalid_grant'],
    ['RFC 6749 §5.2', new UnauthorizedClientError(), 400, 'unauthorized_client'],
    ['RFC 6749 §5.2', new UnsupportedGrantTypeError(), 400, 'unsupported_grant_type'],
    ['RFC 9396 §5', new InvalidAuthorizationDetailsError('x'), 400, 'invalid_authorization_details'],
    ['RFC 6749 §4.1.2.1 (DESIGN 2.1: 403)', new AccessDeniedError(), 403, 'access_denied'],
    ['RFC 9449 §5', new InvalidDpopProofError('x'), 400, 'invalid_dpop_proof'],
    ['RFC 9449 §8', new UseDpopNonceError('n'), 400, 'use_dpop_nonce'],
    ['RFC 6750 §3.1', new InvalidTokenError(), 401, 'invalid_token'],
    ['RFC 9110 §15.5.10', new ConflictError('stale_version'), 409, 'conflict'],
    ['DESIGN 2.1', new NotFoundError(), 404, 'not_found'],
  ])('%s: %p answers %i %s', (_section, error, status, code) => {
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.toBody()['error']).toBe(code);
  });

  it('re-exports the platform InvalidRequestError (one class, one filter mapping)', () => {
    expect(InvalidRequestError).toBe(BaseInvalidRequestError);
  });

  it('RFC 6749 §5.2 / RFC 9110 §15.5.2: invalid_client carries a private_key_jwt challenge, never Bearer', () => {
    const error = new InvalidClientError('client_assertion has expired');
    expect(error.headers).toEqual({ 'WWW-Authenticate': 'private_key_jwt error="invalid_client"' });
    expect(error.toBody()).toEqual({ error: 'invalid_client', error_description: 'client_assertion has expired' });
  });

  it('invalid_grant takes the optional mission_error and mission_denial_reason members', () => {
    expect(new InvalidGrantError('mission is not active', { missionError: 'mission_not_active' }).toBody()).toEqual({
      error: 'invalid_grant',
      error_description: 'mission is not active',
      mission_error: 'mission_not_active',
    });
    expect(new InvalidGrantError('parent is not active', { missionDenialReason: 'parent_not_active' }).toBody()).toMatchObject({ mission_denial_reason: 'parent_not_active' });
    expect(new InvalidGrantError('x').toBody()).toEqual({ error: 'invalid_grant', error_description: 'x' });
  });

  it('spec child-mission-delegation §7: every denial reason has its OAuth error and rides on any error as mission_denial_reason', () => {
    expect(Object.keys(MISSION_DENIAL_ERROR_CODE).sort()).toEqual([...MISSION_DENIAL_REASONS].sort());
    expect(new InvalidRequestError('not a subset', withMissionDenialReason('not_strict_subset')).toBody()).toEqual({
      error: 'invalid_request',
      error_description: 'not a subset',
      mission_denial_reason: 'not_strict_subset',
    });
    expect(new AccessDeniedError('policy', { missionDenialReason: 'policy_denied' }).toBody()).toMatchObject({ error: 'access_denied', mission_denial_reason: 'policy_denied' });
    expect(withMissionDenialReason('fanout_exceeded', { members: { a: 1 } }).members).toEqual({ a: 1, mission_denial_reason: 'fanout_exceeded' });
  });

  it('RFC 9449 §7.1: invalid_dpop_proof names the accepted algorithms', () => {
    expect(new InvalidDpopProofError('x').headers['WWW-Authenticate']).toBe('DPoP error="invalid_dpop_proof", algs="ES256 EdDSA Ed25519"');
    expect(new InvalidDpopProofError('x', { algs: ['ES256'] }).headers['WWW-Authenticate']).toBe('DPoP error="invalid_dpop_proof", algs="ES256"');
  });

  it('RFC 9449 §8: use_dpop_nonce sends the fresh nonce in DPoP-Nonce; §9: 401 with a challenge at a resource server', () => {
    expect(new UseDpopNonceError('abc').headers).toEqual({ 'DPoP-Nonce': 'abc' });
    const atResource = new UseDpopNonceError('abc', undefined, { resourceServer: true });
    expect(atResource.status).toBe(401);
    expect(atResource.headers).toEqual({ 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"', 'DPoP-Nonce': 'abc' });
  });

  it('conflict carries its reason member', () => {
    expect(new ConflictError('stale_version').toBody()).toEqual({ error: 'conflict', error_description: 'the mission changed since it was read', reason: 'stale_version' });
  });
});
