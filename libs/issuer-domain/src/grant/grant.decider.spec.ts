import { fold, given } from '@mission/decider';
import { InvalidCommandError } from '../shared/errors.js';
import { sha256Base64url } from '../shared/sha256.js';
import { ADMIN, at, MISSION_ID, T0 } from '../testing/fixtures.js';
import type { RedeemAuthorizationCode, RotateRefreshToken } from './grant.commands.js';
import type { GrantEvent } from './grant.events.js';
import { grantDecider, throwIfGrantRefused } from './grant.decider.js';
import type { Grant } from './grant.state.js';
import {
  AuthorizationCodeExpiredError,
  AuthorizationCodeReusedError,
  DpopBindingMismatchError,
  GrantClientMismatchError,
  GrantNotFoundError,
  GrantRevokedError,
  InvalidGrantError,
  PkceVerificationError,
  RedirectUriMismatchError,
  RefreshTokenReusedError,
  UnknownGrantTokenError,
} from './grant.errors.js';
import { grantIdFromBytes, grantTokenFromBytes, grantTokenHash, requestIdFromBytes } from './grant-ids.js';

const GRANT_ID = grantIdFromBytes(new Uint8Array(16).fill(5));
const REQUEST_ID = requestIdFromBytes(new Uint8Array(16).fill(6));
const token = (n: number): string => grantTokenFromBytes(GRANT_ID, new Uint8Array(32).fill(n));
const CODE_HASH = grantTokenHash(token(1));
const RT1 = grantTokenHash(token(2));
const RT2 = grantTokenHash(token(3));
const RT3 = grantTokenHash(token(4));
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = sha256Base64url(VERIFIER);
const JKT = sha256Base64url('client key');
const OTHER_JKT = sha256Base64url('attacker key');
const REDIRECT = 'http://127.0.0.1:9000/cb';
const CODE_EXPIRES = at('2026-11-22T09:01:00.000Z');
const T1 = at('2026-11-22T09:00:10.000Z');
const T2 = at('2026-11-22T09:05:00.000Z');
const T3 = at('2026-11-22T09:10:00.000Z');

const codeIssued: GrantEvent = {
  type: 'AuthorizationCodeIssued',
  data: {
    grant_id: GRANT_ID,
    mission_id: MISSION_ID,
    client_id: 'agent-a',
    code_hash: CODE_HASH,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    dpop_jkt: JKT,
    request_id: REQUEST_ID,
    expires_at: CODE_EXPIRES.toISOString(),
    occurred_at: T0.toISOString(),
  },
};
const redeem = (overrides: Partial<RedeemAuthorizationCode> = {}): RedeemAuthorizationCode => ({
  type: 'RedeemAuthorizationCode',
  codeHash: CODE_HASH,
  clientId: 'agent-a',
  redirectUri: REDIRECT,
  codeVerifierChallenge: CHALLENGE,
  dpopJkt: JKT,
  refreshTokenHash: RT1,
  now: T1,
  ...overrides,
});
const redeemed: GrantEvent = { type: 'AuthorizationCodeRedeemed', data: { grant_id: GRANT_ID, client_id: 'agent-a', jkt: JKT, occurred_at: T1.toISOString() } };
const rt1Issued: GrantEvent = { type: 'RefreshTokenIssued', data: { grant_id: GRANT_ID, refresh_token_hash: RT1, jkt: JKT, occurred_at: T1.toISOString() } };
const refresh = (overrides: Partial<RotateRefreshToken> = {}): RotateRefreshToken => ({
  type: 'RotateRefreshToken',
  refreshTokenHash: RT1,
  newRefreshTokenHash: RT2,
  clientId: 'agent-a',
  dpopJkt: JKT,
  now: T2,
  ...overrides,
});
const rotated: GrantEvent = {
  type: 'RefreshTokenRotated',
  data: { grant_id: GRANT_ID, previous_hash: RT1, refresh_token_hash: RT2, jkt: JKT, occurred_at: T2.toISOString() },
};
const revokedFor = (reason: string, now: Date, actor = { id: 'agent-a', role: 'client' }): GrantEvent =>
  ({ type: 'GrantRevoked', data: { grant_id: GRANT_ID, mission_id: MISSION_ID, reason, actor, occurred_at: now.toISOString() } }) as GrantEvent;
const active = [codeIssued, redeemed, rt1Issued];

describe('authorization grant decider (grant-<id>)', () => {
  describe('issuing the code', () => {
    it('DESIGN 2.3: stores only the code hash, with client, redirect URI, S256 challenge, DPoP key and expiry', () => {
      given(grantDecider)
        .when({ type: 'IssueAuthorizationCode', grantId: GRANT_ID, missionId: MISSION_ID, clientId: 'agent-a', codeHash: CODE_HASH, redirectUri: REDIRECT, codeChallenge: CHALLENGE, dpopJkt: JKT, requestId: REQUEST_ID, expiresAt: CODE_EXPIRES, now: T0 })
        .then([codeIssued]);
    });

    it('refuses a raw code where its hash belongs, and a second issue on the stream', () => {
      const base = { type: 'IssueAuthorizationCode', grantId: GRANT_ID, missionId: MISSION_ID, clientId: 'agent-a', redirectUri: REDIRECT, codeChallenge: CHALLENGE, expiresAt: CODE_EXPIRES, now: T0 } as const;
      given(grantDecider).when({ ...base, codeHash: token(1) }).thenThrows(InvalidCommandError);
      given(grantDecider, [codeIssued]).when({ ...base, codeHash: CODE_HASH }).thenThrows(InvalidCommandError);
      given(grantDecider).when({ ...base, codeHash: CODE_HASH, expiresAt: T0 }).thenThrows(InvalidCommandError);
    });
  });

  describe('redeeming the code (RFC 6749 §4.1.3, RFC 7636 §4.6, RFC 9449 §10)', () => {
    it('redeems once, binding the grant to the DPoP key and issuing the first refresh token in the same decision', () => {
      const state = given(grantDecider, [codeIssued]).when(redeem()).then([redeemed, rt1Issued]);
      expect(state).toMatchObject({ status: 'active', codeRedeemed: true, jkt: JKT, refreshTokenHash: RT1 });
    });

    it('redeems without a refresh token when none is asked for', () => {
      given(grantDecider, [codeIssued]).when(redeem({ refreshTokenHash: undefined })).then([redeemed]);
    });

    it('a code without dpop_jkt binds to the key of the redeeming proof', () => {
      const unbound: Record<string, unknown> = { ...codeIssued.data };
      delete unbound['dpop_jkt'];
      given(grantDecider, [{ type: 'AuthorizationCodeIssued', data: unbound } as unknown as GrantEvent])
        .when(redeem({ dpopJkt: OTHER_JKT }))
        .then([
          { ...redeemed, data: { ...redeemed.data, jkt: OTHER_JKT } } as GrantEvent,
          { ...rt1Issued, data: { ...rt1Issued.data, jkt: OTHER_JKT } } as GrantEvent,
        ]);
    });

    it('RFC 6749 §4.1.2: a second redemption revokes the grant (GrantRevoked) and is refused with AuthorizationCodeReusedError', () => {
      const state = given(grantDecider, active).when(redeem({ now: T2 })).then([revokedFor('authorization_code_reuse', T2)]);
      expect(state).toMatchObject({ status: 'revoked', revocation: { reason: 'authorization_code_reuse' } });
      expect(() => throwIfGrantRefused([revokedFor('authorization_code_reuse', T2)])).toThrow(AuthorizationCodeReusedError);
    });

    it('RFC 6749 §4.1.2: reuse revokes even when another client presents the leaked code', () => {
      given(grantDecider, active).when(redeem({ clientId: 'agent-b', now: T2 })).then([revokedFor('authorization_code_reuse', T2, { id: 'agent-b', role: 'client' })]);
    });

    it('after revocation the code and the refresh token are refused without further events', () => {
      const history = [...active, revokedFor('authorization_code_reuse', T2)];
      given(grantDecider, history).when(redeem({ now: T3 })).thenThrows(GrantRevokedError);
      given(grantDecider, history).when(refresh({ now: T3 })).thenThrows(GrantRevokedError);
    });

    it.each([
      ['an unknown grant', [], redeem(), GrantNotFoundError],
      ['a code whose hash does not match', [codeIssued], redeem({ codeHash: RT3 }), UnknownGrantTokenError],
      ['another client', [codeIssued], redeem({ clientId: 'agent-b' }), GrantClientMismatchError],
      ['an expired code', [codeIssued], redeem({ now: CODE_EXPIRES }), AuthorizationCodeExpiredError],
      ['a different redirect_uri', [codeIssued], redeem({ redirectUri: 'http://127.0.0.1:9000/other' }), RedirectUriMismatchError],
      ['a wrong code_verifier', [codeIssued], redeem({ codeVerifierChallenge: sha256Base64url('wrong') }), PkceVerificationError],
      ['a proof from a key other than dpop_jkt', [codeIssued], redeem({ dpopJkt: OTHER_JKT }), DpopBindingMismatchError],
    ] as const)('refuses %s with invalid_grant, without using up the code', (_, history, command, errorClass) => {
      given(grantDecider, [...history]).when(command).thenThrows(errorClass, (error) => expect(error).toBeInstanceOf(InvalidGrantError));
      if (history.length > 0) given(grantDecider, [...history]).when(redeem()).then([redeemed, rt1Issued]);
    });

    it('a hash mismatch never revokes: knowing a grant id is not enough to disturb its grant', () => {
      given(grantDecider, active).when(redeem({ codeHash: RT3 })).thenThrows(UnknownGrantTokenError);
      given(grantDecider, active).when(refresh({ refreshTokenHash: RT3 })).thenThrows(UnknownGrantTokenError);
    });
  });

  describe('refresh token rotation', () => {
    it('rotates the current refresh token to a new one bound to the same key', () => {
      const state = given(grantDecider, active).when(refresh()).then([rotated]);
      expect(state).toMatchObject({ refreshTokenHash: RT2 });
      expect([...(fold(grantDecider, [...active, rotated]) as Grant).retiredRefreshTokenHashes]).toEqual([RT1]);
    });

    it('reuse of a rotated refresh token revokes the grant (reason refresh_token_reuse) and is refused', () => {
      const state = given(grantDecider, [...active, rotated]).when(refresh({ newRefreshTokenHash: RT3, now: T3 })).then([revokedFor('refresh_token_reuse', T3)]);
      expect(state).toMatchObject({ status: 'revoked' });
      expect(() => throwIfGrantRefused([revokedFor('refresh_token_reuse', T3)])).toThrow(RefreshTokenReusedError);
      given(grantDecider, [...active, rotated, revokedFor('refresh_token_reuse', T3)]).when(refresh({ refreshTokenHash: RT2, newRefreshTokenHash: RT3, now: T3 })).thenThrows(GrantRevokedError);
    });

    it.each([
      ['before the code was redeemed', [codeIssued], refresh(), UnknownGrantTokenError],
      ['an unknown grant', [], refresh(), GrantNotFoundError],
      ['another client', active, refresh({ clientId: 'agent-b' }), GrantClientMismatchError],
      ['a proof from another key (RFC 9449 §5)', active, refresh({ dpopJkt: OTHER_JKT }), DpopBindingMismatchError],
    ] as const)('refuses a refresh %s', (_, history, command, errorClass) => {
      given(grantDecider, [...history]).when(command).thenThrows(errorClass);
    });

    it('refuses a new hash that is not fresh', () => {
      given(grantDecider, active).when(refresh({ newRefreshTokenHash: RT1 })).thenThrows(InvalidCommandError);
      given(grantDecider, [...active, rotated]).when(refresh({ refreshTokenHash: RT2, newRefreshTokenHash: RT1 })).thenThrows(InvalidCommandError);
    });

    it('throwIfGrantRefused is quiet for ordinary outcomes', () => {
      expect(() => throwIfGrantRefused([rotated])).not.toThrow();
      expect(() => throwIfGrantRefused([revokedFor('client_revocation', T2)])).not.toThrow();
    });
  });

  describe('RFC 7009 revocation and administrative revocation', () => {
    it('RFC 7009 §2.1: the client revokes its refresh token, which revokes the grant', () => {
      given(grantDecider, active).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: 'agent-a', now: T2 }).then([revokedFor('client_revocation', T2)]);
    });

    it('RFC 7009 §2.2: unknown tokens, unknown grants and already revoked grants change nothing (answered 200)', () => {
      given(grantDecider, active).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT3, clientId: 'agent-a', now: T2 }).thenNothingHappens();
      given(grantDecider).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: 'agent-a', now: T2 }).thenNothingHappens();
      given(grantDecider, [...active, revokedFor('client_revocation', T2)]).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: 'agent-a', now: T3 }).thenNothingHappens();
    });

    it('RFC 7009 §2.1: a token of another client is refused', () => {
      given(grantDecider, active).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: 'agent-b', now: T2 }).thenThrows(GrantClientMismatchError);
    });

    it('an administrator or process revokes a grant once', () => {
      given(grantDecider, active).when({ type: 'RevokeGrant', actor: ADMIN, now: T2 }).then([revokedFor('administrative', T2, ADMIN)]);
      given(grantDecider, [...active, revokedFor('administrative', T2, ADMIN)]).when({ type: 'RevokeGrant', actor: ADMIN, now: T3 }).thenNothingHappens();
      given(grantDecider).when({ type: 'RevokeGrant', actor: ADMIN, now: T3 }).thenThrows(GrantNotFoundError);
    });
  });
});
