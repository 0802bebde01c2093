import { Set as PersistentSet } from 'immutable';
import { given } from '@mission/decider';
import { InvalidCommandError } from '../shared/errors.js';
import { sha256Base64url } from '../shared/sha256.js';
import { ADMIN, at, MISSION_ID, OTHER_MISSION_ID, T0 } from '../testing/fixtures.js';
import type { IssueChildGrant, LapseChildGrant, RedeemAuthorizationCode, RedeemChildGrant, RotateRefreshToken } from './grant.commands.js';
import { grantDecider, throwIfGrantRefused } from './grant.decider.js';
import type { Grant } from './grant.state.js';
import {
  ChildGrantExpiredError,
  ChildGrantReusedError,
  ChildKeyIsLineageKeyError,
  DpopBindingMismatchError,
  GrantClientMismatchError,
  GrantNotFoundError,
  GrantRevokedError,
  InvalidGrantError,
  RefreshTokenReusedError,
  UnknownGrantTokenError,
  WrongGrantKindError, ChildGrantNotYetExpiredError } from './grant.errors.js';
import type { GrantEvent, GrantRevocationReason } from './grant.events.js';
import { grantIdFromBytes, grantTokenFromBytes, grantTokenHash } from './grant-ids.js';

/* The Child Mission is MISSION_ID, its parent OTHER_MISSION_ID; the child actor is child-agent-1, the parent's client agent-a. */
const GRANT_ID = grantIdFromBytes(new Uint8Array(16).fill(7));
const CODE_GRANT_ID = grantIdFromBytes(new Uint8Array(16).fill(8));
const token = (n: number): string => grantTokenFromBytes(GRANT_ID, new Uint8Array(32).fill(n));
const GRANT_TOKEN = token(1);
const GRANT_HASH = grantTokenHash(GRANT_TOKEN);
const RT1 = grantTokenHash(token(2));
const RT2 = grantTokenHash(token(3));
const RT3 = grantTokenHash(token(4));
const CHILD = 'child-agent-1';
const PARENT_CLIENT = 'agent-a';
const CHILD_JKT = sha256Base64url('child actor key');
const PARENT_JKT = sha256Base64url('parent client key');
const LAPSE_PROCESS = { id: 'child-grant-lapse', role: 'system' };
const GRANT_EXPIRES = at('2026-11-22T09:01:00.000Z');
const T1 = at('2026-11-22T09:00:10.000Z');
const T2 = at('2026-11-22T09:05:00.000Z');
const T3 = at('2026-11-22T09:10:00.000Z');

const issue = (overrides: Partial<IssueChildGrant> = {}): IssueChildGrant => ({
  type: 'IssueChildGrant',
  grantId: GRANT_ID,
  missionId: MISSION_ID,
  parentMissionId: OTHER_MISSION_ID,
  clientId: CHILD,
  grantHash: GRANT_HASH,
  lineageJkts: [PARENT_JKT],
  expiresAt: GRANT_EXPIRES,
  now: T0,
  ...overrides,
});
const issued: GrantEvent = {
  type: 'ChildGrantIssued',
  data: {
    grant_id: GRANT_ID,
    mission_id: MISSION_ID,
    parent_mission_id: OTHER_MISSION_ID,
    client_id: CHILD,
    grant_hash: GRANT_HASH,
    lineage_jkts: [PARENT_JKT],
    expires_at: GRANT_EXPIRES.toISOString(),
    occurred_at: T0.toISOString(),
  },
};
const redeem = (overrides: Partial<RedeemChildGrant> = {}): RedeemChildGrant => ({
  type: 'RedeemChildGrant',
  grantHash: GRANT_HASH,
  clientId: CHILD,
  dpopJkt: CHILD_JKT,
  refreshTokenHash: RT1,
  now: T1,
  ...overrides,
});
const redeemed: GrantEvent = { type: 'ChildGrantRedeemed', data: { grant_id: GRANT_ID, client_id: CHILD, jkt: CHILD_JKT, occurred_at: T1.toISOString() } };
const rt1Issued: GrantEvent = { type: 'RefreshTokenIssued', data: { grant_id: GRANT_ID, refresh_token_hash: RT1, jkt: CHILD_JKT, occurred_at: T1.toISOString() } };
const active = [issued, redeemed, rt1Issued];
const refresh = (overrides: Partial<RotateRefreshToken> = {}): RotateRefreshToken => ({
  type: 'RotateRefreshToken',
  refreshTokenHash: RT1,
  newRefreshTokenHash: RT2,
  clientId: CHILD,
  dpopJkt: CHILD_JKT,
  now: T2,
  ...overrides,
});
const lapse = (now = GRANT_EXPIRES): LapseChildGrant => ({ type: 'LapseChildGrant', actor: LAPSE_PROCESS, now });
const revokedFor = (reason: GrantRevocationReason, now: Date, actor: { id: string; role: string } = { id: CHILD, role: 'client' }): GrantEvent => ({
  type: 'GrantRevoked',
  data: { grant_id: GRANT_ID, mission_id: MISSION_ID, reason, actor, occurred_at: now.toISOString() },
});

// An ordinary authorization code, to present where a creation grant belongs and the other way round.
const CODE_HASH = grantTokenHash(grantTokenFromBytes(CODE_GRANT_ID, new Uint8Array(32).fill(9)));
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const REDIRECT = 'http://127.0.0.1:9000/cb';
const codeIssued: GrantEvent = {
  type: 'AuthorizationCodeIssued',
  data: {
    grant_id: CODE_GRANT_ID,
    mission_id: OTHER_MISSION_ID,
    client_id: PARENT_CLIENT,
    code_hash: CODE_HASH,
    redirect_uri: REDIRECT,
    code_challenge: sha256Base64url(VERIFIER),
    code_challenge_method: 'S256',
    expires_at: GRANT_EXPIRES.toISOString(),
    occurred_at: T0.toISOString(),
  },
};
const codeRedeemed: GrantEvent = { type: 'AuthorizationCodeRedeemed', data: { grant_id: CODE_GRANT_ID, client_id: PARENT_CLIENT, jkt: PARENT_JKT, occurred_at: T1.toISOString() } };
const redeemCode = (overrides: Partial<RedeemAuthorizationCode> = {}): RedeemAuthorizationCode => ({
  type: 'RedeemAuthorizationCode',
  codeHash: GRANT_HASH,
  clientId: CHILD,
  redirectUri: REDIRECT,
  codeVerifierChallenge: sha256Base64url(VERIFIER),
  dpopJkt: CHILD_JKT,
  now: T1,
  ...overrides,
});

describe('Child Mission creation grant (DESIGN 2.4 redemption, spec 4.1 rule 3, spec 4.2, spec 5)', () => {
  describe('IssueChildGrant', () => {
    it('DESIGN 2.4: records ChildGrantIssued with the child mission, its parent, the child actor and only the grant hash', () => {
      const state = given(grantDecider).when(issue()).then([issued]);
      expect(state).toEqual({
        status: 'code_issued',
        kind: 'child_creation',
        grantId: GRANT_ID,
        missionId: MISSION_ID,
        parentMissionId: OTHER_MISSION_ID,
        lineageJkts: [PARENT_JKT],
        clientId: CHILD,
        codeHash: GRANT_HASH,
        codeExpiresAt: GRANT_EXPIRES,
        issuedAt: T0,
        codeRedeemed: false,
        retiredRefreshTokenHashes: PersistentSet(),
      });
      expect(JSON.stringify(issued)).not.toContain(GRANT_TOKEN);
    });

    it.each<[string, Partial<IssueChildGrant>]>([
      ['a malformed grant id', { grantId: 'grt_short' }],
      ['a malformed mission id', { missionId: 'msn_short' }],
      ['a malformed parent mission id', { parentMissionId: 'msn_short' }],
      ['the child as its own parent', { parentMissionId: MISSION_ID }],
      ['an empty client id', { clientId: '' }],
      ['the raw grant token where its hash belongs', { grantHash: GRANT_TOKEN }],
      ['an expiry not after now', { expiresAt: T0 }],
      ['an invalid now', { now: new Date(Number.NaN) }],
    ])('DESIGN 2.4 creation grant: refuses %s with InvalidCommandError (the application built it)', (_, overrides) => {
      given(grantDecider).when(issue(overrides)).thenThrows(InvalidCommandError);
    });

    it('DESIGN 2.4 creation grant: refuses a second issue on the same stream', () => {
      given(grantDecider, [issued]).when(issue()).thenThrows(InvalidCommandError);
      given(grantDecider, [codeIssued]).when(issue()).thenThrows(InvalidCommandError);
    });
  });

  describe('RedeemChildGrant', () => {
    it('spec 2.5 rule 8, 5 rules 3–4 (attacker: the child actor presents the parent grant\'s key or a grandparent grant\'s key): refused, nothing recorded, the grant stays redeemable', () => {
      const GRANDPARENT_JKT = sha256Base64url('grandparent client key');
      const lineage = { ...issued, data: { ...issued.data, lineage_jkts: [PARENT_JKT, GRANDPARENT_JKT] } } as GrantEvent;
      for (const jkt of [PARENT_JKT, GRANDPARENT_JKT]) {
        expect(() => grantDecider.decide(redeem({ dpopJkt: jkt }), [lineage].reduce(grantDecider.evolve, grantDecider.initialState))).toThrow(ChildKeyIsLineageKeyError);
      }
      given(grantDecider, [lineage]).when(redeem({ refreshTokenHash: undefined })).then([redeemed]);
      expect(new ChildKeyIsLineageKeyError()).toMatchObject({ error: 'invalid_grant' });
    });

    it('spec 2.5 rule 8: a creation grant must name at least the parent grant\'s key', () => {
      expect(() => grantDecider.decide(issue({ lineageJkts: [] }), grantDecider.initialState)).toThrow(/lineageJkts/);
    });

    it('spec 4.2, spec 2.5 rule 8: the named child actor redeems with its own key; the first refresh token is bound to that key', () => {
      const state = given(grantDecider, [issued]).when(redeem()).then([redeemed, rt1Issued]);
      expect(state).toMatchObject({ status: 'active', kind: 'child_creation', codeRedeemed: true, jkt: CHILD_JKT, refreshTokenHash: RT1 });
    });

    it('spec 4.2: redeems without a refresh token when none is asked for', () => {
      const state = given(grantDecider, [issued]).when(redeem({ refreshTokenHash: undefined })).then([redeemed]);
      expect(state).toMatchObject({ status: 'active', jkt: CHILD_JKT });
      expect(state).not.toHaveProperty('refreshTokenHash');
    });

    it('DESIGN 2.4: redeemable up to one millisecond before it lapses', () => {
      const justBefore = at('2026-11-22T09:00:59.999Z');
      given(grantDecider, [issued])
        .when(redeem({ now: justBefore, refreshTokenHash: undefined }))
        .then([{ type: 'ChildGrantRedeemed', data: { grant_id: GRANT_ID, client_id: CHILD, jkt: CHILD_JKT, occurred_at: justBefore.toISOString() } }]);
    });

    it('DESIGN 2.4 single use: a second redemption revokes the grant (child_grant_reuse) and throwIfGrantRefused throws ChildGrantReusedError', () => {
      const state = given(grantDecider, active).when(redeem({ now: T2, refreshTokenHash: RT2 })).then([revokedFor('child_grant_reuse', T2)]);
      expect(state).toMatchObject({ status: 'revoked', revocation: { reason: 'child_grant_reuse', at: T2 } });
      expect(() => throwIfGrantRefused([revokedFor('child_grant_reuse', T2)])).toThrow(ChildGrantReusedError);
      expect(new ChildGrantReusedError()).toMatchObject({ error: 'invalid_grant' });
    });

    it('DESIGN 2.4 single use: a second redemption revokes even when another client presents the leaked request_uri, and even after expiry', () => {
      given(grantDecider, active).when(redeem({ clientId: PARENT_CLIENT, dpopJkt: PARENT_JKT, now: T2 })).then([revokedFor('child_grant_reuse', T2, { id: PARENT_CLIENT, role: 'client' })]);
      given(grantDecider, active).when(redeem({ now: T3 })).then([revokedFor('child_grant_reuse', T3)]);
    });

    it('DESIGN 2.4: after the reuse revocation, the request_uri and the child refresh token are refused without further events', () => {
      const history = [...active, revokedFor('child_grant_reuse', T2)];
      given(grantDecider, history).when(redeem({ now: T3 })).thenThrows(GrantRevokedError);
      given(grantDecider, history).when(refresh({ now: T3 })).thenThrows(GrantRevokedError);
    });

    it('spec 1 item 4, spec 5 rule 3, DESIGN 2.4: only the named child actor may redeem — the parent client is refused and the grant stays redeemable', () => {
      given(grantDecider, [issued]).when(redeem({ clientId: PARENT_CLIENT, dpopJkt: PARENT_JKT })).thenThrows(GrantClientMismatchError, (error) => expect(error).toBeInstanceOf(InvalidGrantError));
      given(grantDecider, [issued]).when(redeem({ clientId: 'child-agent-2' })).thenThrows(GrantClientMismatchError);
      given(grantDecider, [issued]).when(redeem()).then([redeemed, rt1Issued]);
    });

    it('DESIGN 2.4: a lapsed creation grant is refused with ChildGrantExpiredError (invalid_grant)', () => {
      given(grantDecider, [issued]).when(redeem({ now: GRANT_EXPIRES })).thenThrows(ChildGrantExpiredError, (error) => expect(error).toMatchObject({ error: 'invalid_grant' }));
      given(grantDecider, [issued]).when(redeem({ now: T3 })).thenThrows(ChildGrantExpiredError);
    });

    it('DESIGN 2.4: an unknown request_uri is refused (invalid_grant)', () => {
      given(grantDecider).when(redeem()).thenThrows(GrantNotFoundError, (error) => expect(error).toBeInstanceOf(InvalidGrantError));
      given(grantDecider, [issued]).when(redeem({ grantHash: RT3 })).thenThrows(UnknownGrantTokenError);
    });

    it('DESIGN 2.4: a wrong secret never revokes — knowing the grant id is not enough to disturb a redeemed grant', () => {
      given(grantDecider, active).when(redeem({ grantHash: RT3, now: T2 })).thenThrows(UnknownGrantTokenError);
    });

    it('DESIGN 2.4: an authorization code presented as a creation grant is refused with WrongGrantKindError and changes nothing', () => {
      given(grantDecider, [codeIssued]).when(redeem({ grantHash: CODE_HASH, clientId: PARENT_CLIENT })).thenThrows(WrongGrantKindError, (error) => expect(error).toBeInstanceOf(InvalidGrantError));
      // Even a redeemed code: no reuse revocation of the wrong kind of grant.
      given(grantDecider, [codeIssued, codeRedeemed]).when(redeem({ grantHash: CODE_HASH, clientId: PARENT_CLIENT })).thenThrows(WrongGrantKindError);
    });

    it('DESIGN 2.4: a creation grant presented as an authorization code is refused with WrongGrantKindError and stays redeemable', () => {
      given(grantDecider, [issued]).when(redeemCode()).thenThrows(WrongGrantKindError, (error) => expect(error).toMatchObject({ error: 'invalid_grant' }));
      given(grantDecider, active).when(redeemCode({ now: T2 })).thenThrows(WrongGrantKindError);
      given(grantDecider, [issued]).when(redeem()).then([redeemed, rt1Issued]);
    });

    it.each<[string, Partial<RedeemChildGrant>]>([
      ['a raw grant token where its hash belongs', { grantHash: GRANT_TOKEN }],
      ['a DPoP thumbprint that is not a SHA-256 value', { dpopJkt: 'not-a-thumbprint' }],
      ['a malformed refresh token hash', { refreshTokenHash: 'short' }],
      ['a refresh token hash equal to the grant hash', { refreshTokenHash: GRANT_HASH }],
      ['an empty client id', { clientId: '' }],
    ])('DESIGN 2.4 redemption: refuses %s with InvalidCommandError (the application built it)', (_, overrides) => {
      given(grantDecider, [issued]).when(redeem(overrides)).thenThrows(InvalidCommandError);
    });
  });

  describe('LapseChildGrant', () => {
    it('DESIGN 2.4: an unredeemed creation grant lapses: GrantRevoked child_grant_unredeemed, then redemption is refused', () => {
      const state = given(grantDecider, [issued]).when(lapse()).then([revokedFor('child_grant_unredeemed', GRANT_EXPIRES, LAPSE_PROCESS)]);
      expect(state).toMatchObject({ status: 'revoked', codeRedeemed: false, revocation: { reason: 'child_grant_unredeemed' } });
      expect(() => throwIfGrantRefused([revokedFor('child_grant_unredeemed', GRANT_EXPIRES, LAPSE_PROCESS)])).not.toThrow();
      given(grantDecider, [issued, revokedFor('child_grant_unredeemed', GRANT_EXPIRES, LAPSE_PROCESS)]).when(redeem({ now: T3 })).thenThrows(GrantRevokedError);
    });

    it('DESIGN 2.4: lapse after redemption decides nothing (the child keeps its grant)', () => {
      given(grantDecider, active).when(lapse()).thenNothingHappens();
      given(grantDecider, [issued, redeemed]).when(lapse(T3)).thenNothingHappens();
      const afterRotation: GrantEvent = { type: 'RefreshTokenRotated', data: { grant_id: GRANT_ID, previous_hash: RT1, refresh_token_hash: RT2, jkt: CHILD_JKT, occurred_at: T2.toISOString() } };
      given(grantDecider, [...active, afterRotation]).when(lapse(T3)).thenNothingHappens();
    });

    it('DESIGN 2.4: a lapse before the grant expires (an early process manager) is refused and changes nothing', () => {
      given(grantDecider, [issued]).when(lapse(T1)).thenThrows(ChildGrantNotYetExpiredError);
      given(grantDecider, [issued]).when(lapse(new Date(GRANT_EXPIRES.getTime() - 1))).thenThrows(ChildGrantNotYetExpiredError);
    });

    it('DESIGN 2.4: lapse decides nothing for an already revoked grant, an unknown grant or an authorization code', () => {
      given(grantDecider, [issued, revokedFor('child_grant_unredeemed', GRANT_EXPIRES, LAPSE_PROCESS)]).when(lapse(T3)).thenNothingHappens();
      given(grantDecider, [...active, revokedFor('child_grant_reuse', T2)]).when(lapse(T3)).thenNothingHappens();
      given(grantDecider).when(lapse()).thenNothingHappens();
      given(grantDecider, [codeIssued]).when(lapse()).thenNothingHappens();
    });

    it('DESIGN 2.4 lapse: refuses a lapse without a valid actor or time (InvalidCommandError)', () => {
      given(grantDecider, [issued]).when({ type: 'LapseChildGrant', actor: { id: '', role: 'system' }, now: GRANT_EXPIRES }).thenThrows(InvalidCommandError);
      given(grantDecider, [issued]).when({ type: 'LapseChildGrant', actor: LAPSE_PROCESS, now: new Date(Number.NaN) }).thenThrows(InvalidCommandError);
    });
  });

  describe('refresh after child redemption (spec 2.5 rule 8, spec 5 rule 4)', () => {
    const rotated: GrantEvent = { type: 'RefreshTokenRotated', data: { grant_id: GRANT_ID, previous_hash: RT1, refresh_token_hash: RT2, jkt: CHILD_JKT, occurred_at: T2.toISOString() } };

    it('spec 2.5 rule 8: the child actor refreshes with its own key; the rotated token stays bound to the child\'s jkt', () => {
      const state = given(grantDecider, active).when(refresh()).then([rotated]);
      expect(state).toMatchObject({ status: 'active', kind: 'child_creation', refreshTokenHash: RT2, jkt: CHILD_JKT });
      expect([...(state as Grant).retiredRefreshTokenHashes]).toEqual([RT1]);
      given(grantDecider, [...active, rotated])
        .when(refresh({ refreshTokenHash: RT2, newRefreshTokenHash: RT3, now: T3 }))
        .then([{ type: 'RefreshTokenRotated', data: { grant_id: GRANT_ID, previous_hash: RT2, refresh_token_hash: RT3, jkt: CHILD_JKT, occurred_at: T3.toISOString() } }]);
    });

    it('spec 5 rule 3/4: the parent\'s key or the parent client cannot refresh the child\'s grant', () => {
      given(grantDecider, active).when(refresh({ dpopJkt: PARENT_JKT })).thenThrows(DpopBindingMismatchError);
      given(grantDecider, active).when(refresh({ clientId: PARENT_CLIENT })).thenThrows(GrantClientMismatchError);
    });

    it('spec 4.2, DESIGN 2.4: a refresh before the creation grant was redeemed is refused (there is no refresh token yet)', () => {
      given(grantDecider, [issued]).when(refresh({ refreshTokenHash: GRANT_HASH })).thenThrows(UnknownGrantTokenError);
    });

    it('DESIGN 2.2, spec 4.2: reuse of a rotated child refresh token revokes the grant (refresh_token_reuse)', () => {
      given(grantDecider, [...active, rotated]).when(refresh({ newRefreshTokenHash: RT3, now: T3 })).then([revokedFor('refresh_token_reuse', T3)]);
      expect(() => throwIfGrantRefused([revokedFor('refresh_token_reuse', T3)])).toThrow(RefreshTokenReusedError);
    });

    it('DESIGN 2.1 /revoke (RFC 7009), spec 5 rule 3: the child revokes its own refresh token, the parent client cannot; an administrator revokes the grant', () => {
      given(grantDecider, active).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: CHILD, now: T2 }).then([revokedFor('client_revocation', T2)]);
      given(grantDecider, active).when({ type: 'RevokeRefreshToken', refreshTokenHash: RT1, clientId: PARENT_CLIENT, now: T2 }).thenThrows(GrantClientMismatchError);
      given(grantDecider, [issued]).when({ type: 'RevokeGrant', actor: ADMIN, now: T2 }).then([revokedFor('administrative', T2, ADMIN)]);
    });
  });
});
