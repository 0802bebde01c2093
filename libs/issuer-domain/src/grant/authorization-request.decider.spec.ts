import { fold, given } from '@mission/decider';
import { InvalidCommandError } from '../shared/errors.js';
import { sha256Base64url } from '../shared/sha256.js';
import { APPROVER, at, AUTHORITY_SET, INTENT, MISSION_ID, T0 } from '../testing/fixtures.js';
import type { PushAuthorizationRequest } from './authorization-request.commands.js';
import {
  AuthorizationRequestAlreadyUsedError,
  AuthorizationRequestClientMismatchError,
  AuthorizationRequestExistsError,
  AuthorizationRequestExpiredError,
  AuthorizationRequestNotFoundError,
} from './authorization-request.errors.js';
import type { AuthorizationRequestEvent } from './authorization-request.events.js';
import { authorizationRequestDecider, authorizationRequestStatus, pendingAuthorizationRequest } from './authorization-request.decider.js';
import { grantIdFromBytes, requestIdFromBytes } from './grant-ids.js';

const REQUEST_ID = requestIdFromBytes(new Uint8Array(16).fill(3));
const GRANT_ID = grantIdFromBytes(new Uint8Array(16).fill(4));
const CHALLENGE = sha256Base64url('verifier-verifier-verifier-verifier-verifier');
const JKT = sha256Base64url('jwk');
const REQUEST_EXPIRES = at('2026-11-22T09:01:30.000Z');
const T1 = at('2026-11-22T09:00:30.000Z');

const push = (overrides: Partial<PushAuthorizationRequest> = {}): PushAuthorizationRequest => ({
  type: 'PushAuthorizationRequest',
  requestId: REQUEST_ID,
  clientId: 'agent-a',
  redirectUri: 'http://127.0.0.1:9000/cb',
  codeChallenge: CHALLENGE,
  codeChallengeMethod: 'S256',
  state: 'xyz',
  dpopJkt: JKT,
  authoritySet: AUTHORITY_SET,
  intent: INTENT,
  expiresAt: REQUEST_EXPIRES,
  now: T0,
  ...overrides,
});

const received: AuthorizationRequestEvent = {
  type: 'PushedAuthorizationRequestReceived',
  data: {
    request_id: REQUEST_ID,
    client_id: 'agent-a',
    redirect_uri: 'http://127.0.0.1:9000/cb',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'xyz',
    dpop_jkt: JKT,
    authority_set: AUTHORITY_SET,
    intent: INTENT,
    expires_at: REQUEST_EXPIRES.toISOString(),
    occurred_at: T0.toISOString(),
  },
};
const approve = { type: 'ApproveAuthorizationRequest', clientId: 'agent-a', missionId: MISSION_ID, grantId: GRANT_ID, approvedBy: APPROVER, now: T1 } as const;
const approved: AuthorizationRequestEvent = {
  type: 'AuthorizationRequestApproved',
  data: { request_id: REQUEST_ID, mission_id: MISSION_ID, grant_id: GRANT_ID, approved_by: APPROVER, occurred_at: T1.toISOString() },
};
const decline = { type: 'DeclineAuthorizationRequest', clientId: 'agent-a', actor: APPROVER, reason: 'access_denied', now: T1 } as const;
const declined: AuthorizationRequestEvent = {
  type: 'AuthorizationRequestDeclined',
  data: { request_id: REQUEST_ID, actor: APPROVER, reason: 'access_denied', occurred_at: T1.toISOString() },
};

describe('pushed authorization request decider (RFC 9126, DESIGN 2.3)', () => {
  it('DESIGN 2.3: records the request with its S256 challenge, DPoP key, authority set, intent and expiry', () => {
    const state = given(authorizationRequestDecider).when(push()).then([received]);
    expect(state).toMatchObject({ status: 'pending', clientId: 'agent-a', dpopJkt: JKT, expiresAt: REQUEST_EXPIRES });
  });

  it('omits absent optional members (state, dpop_jkt) from the event', () => {
    const data: Record<string, unknown> = { ...received.data };
    delete data['state'];
    delete data['dpop_jkt'];
    given(authorizationRequestDecider)
      .when(push({ state: undefined, dpopJkt: undefined }))
      .then([{ type: 'PushedAuthorizationRequestReceived', data } as unknown as AuthorizationRequestEvent]);
  });

  it('normalises the authority set it stores (DESIGN 2.3)', () => {
    const [entry] = AUTHORITY_SET;
    given(authorizationRequestDecider)
      .when(push({ authoritySet: [{ ...entry!, actions: ['invoices.read', 'invoices.list', 'invoices.list'] }] }))
      .then([received]);
  });

  it.each([
    ['a plain PKCE method', { codeChallengeMethod: 'plain' as 'S256' }],
    ['a malformed code challenge', { codeChallenge: 'short' }],
    ['a malformed DPoP thumbprint', { dpopJkt: 'x' }],
    ['a relative redirect URI', { redirectUri: '/cb' }],
    ['an expiry not after now', { expiresAt: T0 }],
    ['a malformed request id', { requestId: 'req_x' }],
    ['an empty authority set', { authoritySet: [] }],
  ])('refuses %s', (_, change) => {
    given(authorizationRequestDecider).when(push(change)).thenThrows(InvalidCommandError);
  });

  it('refuses a second push on the same stream', () => {
    given(authorizationRequestDecider, [received]).when(push()).thenThrows(AuthorizationRequestExistsError);
  });

  it('approval names the mission and grant it creates', () => {
    const state = given(authorizationRequestDecider, [received]).when(approve).then([approved]);
    expect(state).toMatchObject({ status: 'approved', approval: { missionId: MISSION_ID, grantId: GRANT_ID } });
  });

  it('a person may decline', () => {
    const state = given(authorizationRequestDecider, [received]).when(decline).then([declined]);
    expect(state).toMatchObject({ status: 'declined' });
  });

  it('RFC 9126 §4: a request_uri is used once — no second approval, no decline after approval or approval after decline', () => {
    given(authorizationRequestDecider, [received, approved]).when(approve).thenThrows(AuthorizationRequestAlreadyUsedError);
    given(authorizationRequestDecider, [received, approved]).when(decline).thenThrows(AuthorizationRequestAlreadyUsedError);
    given(authorizationRequestDecider, [received, declined]).when(approve).thenThrows(AuthorizationRequestAlreadyUsedError);
  });

  it('RFC 9126 §2.2: approving or declining at or after expires_at fails', () => {
    given(authorizationRequestDecider, [received]).when({ ...approve, now: REQUEST_EXPIRES }).thenThrows(AuthorizationRequestExpiredError);
    given(authorizationRequestDecider, [received]).when({ ...decline, now: REQUEST_EXPIRES }).thenThrows(AuthorizationRequestExpiredError);
    given(authorizationRequestDecider, [received]).when({ ...approve, now: at('2026-11-22T09:01:29.999Z') }).then([{ ...approved, data: { ...approved.data, occurred_at: '2026-11-22T09:01:29.999Z' } } as AuthorizationRequestEvent]);
  });

  it('RFC 9126 §4: the request_uri is bound to its client; another client learns no more than from an unknown one', () => {
    given(authorizationRequestDecider, [received])
      .when({ ...approve, clientId: 'agent-b' })
      .thenThrows(AuthorizationRequestNotFoundError, (error) => expect(error).toBeInstanceOf(AuthorizationRequestClientMismatchError));
    given(authorizationRequestDecider).when(approve).thenThrows(AuthorizationRequestNotFoundError);
  });

  it('refuses malformed approval commands', () => {
    given(authorizationRequestDecider, [received]).when({ ...approve, missionId: 'msn_x' }).thenThrows(InvalidCommandError);
    given(authorizationRequestDecider, [received]).when({ ...approve, grantId: MISSION_ID }).thenThrows(InvalidCommandError);
  });

  it('status is by time; the consent page reads the pending request through the same checks', () => {
    const state = fold(authorizationRequestDecider, [received]);
    expect(authorizationRequestStatus(state, T1)).toBe('pending');
    expect(authorizationRequestStatus(state, REQUEST_EXPIRES)).toBe('expired');
    expect(authorizationRequestStatus(fold(authorizationRequestDecider, [received, approved]), REQUEST_EXPIRES)).toBe('approved');
    expect(pendingAuthorizationRequest(state, { clientId: 'agent-a', now: T1 })).toMatchObject({ requestId: REQUEST_ID, authoritySet: AUTHORITY_SET });
    expect(() => pendingAuthorizationRequest(state, { clientId: 'agent-a', now: REQUEST_EXPIRES })).toThrow(AuthorizationRequestExpiredError);
  });
});
