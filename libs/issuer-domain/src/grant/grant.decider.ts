import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { isMissionId } from '../mission/mission-id.js';
import { actorData, assertActor, type Actor } from '../shared/actor.js';
import { InvalidCommandError } from '../shared/errors.js';
import { assertDate, assertText } from '../shared/guards.js';
import { isSha256Base64url } from '../shared/sha256.js';
import { absoluteUriProblem } from '../shared/uri.js';
import {
  AuthorizationCodeExpiredError,
  ChildGrantExpiredError,
  ChildGrantNotYetExpiredError,
  ChildGrantReusedError,
  ChildKeyIsLineageKeyError,
  WrongGrantKindError,
  AuthorizationCodeReusedError,
  DpopBindingMismatchError,
  GrantClientMismatchError,
  GrantNotFoundError,
  GrantRevokedError,
  PkceVerificationError,
  RedirectUriMismatchError,
  RefreshTokenReusedError,
  UnknownGrantTokenError,
} from './grant.errors.js';
import type {
  GrantCommand, IssueAuthorizationCode, IssueChildGrant, RedeemAuthorizationCode, RedeemChildGrant, RevokeRefreshToken, RotateRefreshToken,
} from './grant.commands.js';
import type { GrantEvent, GrantRevocationReason } from './grant.events.js';
import type { Grant, GrantState } from './grant.state.js';
import { isGrantId, isRequestId } from './grant-ids.js';
import { evolveGrant } from './grant.evolve.js';

/**
 * The authorization grant (stream `grant-<grant_id>`).
 *
 * Refusals are typed `InvalidGrantError`s. Two refusals also change the grant — a redeemed code
 * presented again (RFC 6749 §4.1.2) and a retired refresh token presented again: `decide` then
 * returns `GrantRevoked` instead of throwing, so the revocation is committed by the same append;
 * after handleCommand, call `throwIfGrantRefused(newEvents)` to answer the client `invalid_grant`.
 */
export const grantDecider: Decider<GrantCommand, GrantEvent, GrantState> = {
  initialState: { status: 'none' },

  decide(command, state) {
    assertDate(command.now, 'now');
    switch (command.type) {
      case 'IssueAuthorizationCode':
        return decideIssue(command, state);
      case 'RedeemAuthorizationCode':
        return decideRedeem(command, state);
      case 'RotateRefreshToken':
        return decideRefresh(command, state);
      case 'RevokeRefreshToken':
        return decideRevokeRefreshToken(command, state);
      case 'IssueChildGrant':
        return decideIssueChildGrant(command, state);
      case 'RedeemChildGrant':
        return decideRedeemChildGrant(command, state);
      case 'LapseChildGrant':
        assertActor(command.actor, 'actor');
        if (state.status !== 'code_issued' || state.kind !== 'child_creation') return [];
        // A process manager running early (clock skew between replicas) must not take a grant the child may still redeem.
        if (command.now.getTime() < state.codeExpiresAt.getTime()) throw new ChildGrantNotYetExpiredError();
        return [revoked(state, 'child_grant_unredeemed', command.actor, command.now)];
      case 'RevokeGrant':
        assertActor(command.actor, 'actor');
        if (state.status === 'none') throw new GrantNotFoundError();
        if (state.status === 'revoked') return [];
        return [revoked(state, 'administrative', command.actor, command.now)];
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown grant command'));
    }
  },

  evolve: evolveGrant,
};

/**
 * After handleCommand: throws the refusal a reuse decision carries (AuthorizationCodeReusedError,
 * RefreshTokenReusedError); returns quietly for any other outcome.
 */
export function throwIfGrantRefused(events: readonly GrantEvent[]): void {
  for (const event of events) {
    if (event.type !== 'GrantRevoked') continue;
    if (event.data.reason === 'authorization_code_reuse') throw new AuthorizationCodeReusedError();
    if (event.data.reason === 'refresh_token_reuse') throw new RefreshTokenReusedError();
    if (event.data.reason === 'child_grant_reuse') throw new ChildGrantReusedError();
  }
}

function decideIssue(command: IssueAuthorizationCode, state: GrantState): GrantEvent[] {
  if (state.status !== 'none') throw new InvalidCommandError('grant already exists');
  if (!isGrantId(command.grantId)) throw new InvalidCommandError('grantId must be a grant id');
  if (!isMissionId(command.missionId)) throw new InvalidCommandError('missionId must be a mission_id');
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.codeHash, 'codeHash');
  if (absoluteUriProblem(command.redirectUri)) throw new InvalidCommandError('redirectUri must be an absolute URI');
  assertHash(command.codeChallenge, 'codeChallenge');
  if (command.dpopJkt !== undefined) assertHash(command.dpopJkt, 'dpopJkt');
  if (command.requestId !== undefined && !isRequestId(command.requestId)) throw new InvalidCommandError('requestId must be a request id');
  assertDate(command.expiresAt, 'expiresAt');
  if (command.expiresAt.getTime() <= command.now.getTime()) throw new InvalidCommandError('expiresAt must be later than now');
  return [
    {
      type: 'AuthorizationCodeIssued',
      data: {
        grant_id: command.grantId,
        mission_id: command.missionId,
        client_id: command.clientId,
        code_hash: command.codeHash,
        redirect_uri: command.redirectUri,
        code_challenge: command.codeChallenge,
        code_challenge_method: 'S256',
        ...(command.dpopJkt !== undefined ? { dpop_jkt: command.dpopJkt } : {}),
        ...(command.requestId !== undefined ? { request_id: command.requestId } : {}),
        expires_at: command.expiresAt.toISOString(),
        occurred_at: command.now.toISOString(),
      },
    },
  ];
}

function decideRedeem(command: RedeemAuthorizationCode, state: GrantState): GrantEvent[] {
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.codeHash, 'codeHash');
  assertHash(command.codeVerifierChallenge, 'codeVerifierChallenge');
  assertHash(command.dpopJkt, 'dpopJkt');
  if (command.refreshTokenHash !== undefined) assertHash(command.refreshTokenHash, 'refreshTokenHash');
  if (state.status === 'none') throw new GrantNotFoundError();
  if (state.kind !== 'authorization_code') throw new WrongGrantKindError();
  if (command.codeHash !== state.codeHash) throw new UnknownGrantTokenError('authorization code');
  if (state.status === 'revoked') throw new GrantRevokedError();
  // RFC 6749 §4.1.2: a second use is refused and the tokens issued from the code are revoked —
  // whoever presents it, since the code has evidently leaked.
  if (state.codeRedeemed) return [revoked(state, 'authorization_code_reuse', { id: command.clientId, role: 'client' }, command.now)];
  if (command.clientId !== state.clientId) throw new GrantClientMismatchError();
  if (command.now.getTime() >= state.codeExpiresAt.getTime()) throw new AuthorizationCodeExpiredError();
  if (command.redirectUri !== state.redirectUri) throw new RedirectUriMismatchError();
  if (command.codeVerifierChallenge !== state.codeChallenge) throw new PkceVerificationError();
  if (state.dpopJkt !== undefined && command.dpopJkt !== state.dpopJkt) throw new DpopBindingMismatchError();

  const occurred_at = command.now.toISOString();
  const events: GrantEvent[] = [{ type: 'AuthorizationCodeRedeemed', data: { grant_id: state.grantId, client_id: state.clientId, jkt: command.dpopJkt, occurred_at } }];
  if (command.refreshTokenHash !== undefined) {
    if (command.refreshTokenHash === state.codeHash) throw new InvalidCommandError('refreshTokenHash must be the hash of a fresh token');
    events.push({ type: 'RefreshTokenIssued', data: { grant_id: state.grantId, refresh_token_hash: command.refreshTokenHash, jkt: command.dpopJkt, occurred_at } });
  }
  return events;
}

function decideIssueChildGrant(command: IssueChildGrant, state: GrantState): GrantEvent[] {
  if (state.status !== 'none') throw new InvalidCommandError('grant already exists');
  if (!isGrantId(command.grantId)) throw new InvalidCommandError('grantId must be a grant id');
  if (!isMissionId(command.missionId)) throw new InvalidCommandError('missionId must be a mission_id');
  if (!isMissionId(command.parentMissionId) || command.parentMissionId === command.missionId) throw new InvalidCommandError('parentMissionId must be another mission_id');
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.grantHash, 'grantHash');
  if (!Array.isArray(command.lineageJkts) || command.lineageJkts.length === 0) {
    throw new InvalidCommandError('lineageJkts must name at least the parent grant\'s key (spec 2.5 rule 8)');
  }
  command.lineageJkts.forEach((jkt, index) => assertHash(jkt, `lineageJkts[${index}]`));
  assertDate(command.expiresAt, 'expiresAt');
  if (command.expiresAt.getTime() <= command.now.getTime()) throw new InvalidCommandError('expiresAt must be later than now');
  return [
    {
      type: 'ChildGrantIssued',
      data: {
        grant_id: command.grantId,
        mission_id: command.missionId,
        parent_mission_id: command.parentMissionId,
        client_id: command.clientId,
        grant_hash: command.grantHash,
        lineage_jkts: [...new Set(command.lineageJkts)],
        expires_at: command.expiresAt.toISOString(),
        occurred_at: command.now.toISOString(),
      },
    },
  ];
}

/** DESIGN 2.4: only the named child actor, once, before it lapses; a second use revokes the grant (as a reused code does). */
function decideRedeemChildGrant(command: RedeemChildGrant, state: GrantState): GrantEvent[] {
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.grantHash, 'grantHash');
  assertHash(command.dpopJkt, 'dpopJkt');
  if (command.refreshTokenHash !== undefined) assertHash(command.refreshTokenHash, 'refreshTokenHash');
  if (state.status === 'none') throw new GrantNotFoundError();
  if (state.kind !== 'child_creation') throw new WrongGrantKindError();
  if (command.grantHash !== state.codeHash) throw new UnknownGrantTokenError('child creation grant');
  if (state.status === 'revoked') throw new GrantRevokedError();
  if (state.codeRedeemed) return [revoked(state, 'child_grant_reuse', { id: command.clientId, role: 'client' }, command.now)];
  if (command.clientId !== state.clientId) throw new GrantClientMismatchError();
  if (command.now.getTime() >= state.codeExpiresAt.getTime()) throw new ChildGrantExpiredError();
  // Spec 2.5 rule 8, 5 rules 3–4: the child's own key — never one the parent (or an ancestor) holds.
  if (state.lineageJkts?.includes(command.dpopJkt)) throw new ChildKeyIsLineageKeyError();

  const occurred_at = command.now.toISOString();
  const events: GrantEvent[] = [{ type: 'ChildGrantRedeemed', data: { grant_id: state.grantId, client_id: state.clientId, jkt: command.dpopJkt, occurred_at } }];
  if (command.refreshTokenHash !== undefined) {
    if (command.refreshTokenHash === state.codeHash) throw new InvalidCommandError('refreshTokenHash must be the hash of a fresh token');
    events.push({ type: 'RefreshTokenIssued', data: { grant_id: state.grantId, refresh_token_hash: command.refreshTokenHash, jkt: command.dpopJkt, occurred_at } });
  }
  return events;
}

function decideRefresh(command: RotateRefreshToken, state: GrantState): GrantEvent[] {
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.refreshTokenHash, 'refreshTokenHash');
  assertHash(command.newRefreshTokenHash, 'newRefreshTokenHash');
  assertHash(command.dpopJkt, 'dpopJkt');
  if (state.status === 'none') throw new GrantNotFoundError();
  if (state.status === 'revoked') throw new GrantRevokedError();
  // A retired token presented again: one of two parties holds a copy (Security BCP §4.14.2).
  if (state.retiredRefreshTokenHashes.has(command.refreshTokenHash)) {
    return [revoked(state, 'refresh_token_reuse', { id: command.clientId, role: 'client' }, command.now)];
  }
  if (state.refreshTokenHash === undefined || command.refreshTokenHash !== state.refreshTokenHash) throw new UnknownGrantTokenError('refresh token');
  if (command.clientId !== state.clientId) throw new GrantClientMismatchError();
  if (command.dpopJkt !== state.jkt) throw new DpopBindingMismatchError();
  if (
    command.newRefreshTokenHash === state.refreshTokenHash ||
    command.newRefreshTokenHash === state.codeHash ||
    state.retiredRefreshTokenHashes.has(command.newRefreshTokenHash)
  ) {
    throw new InvalidCommandError('newRefreshTokenHash must be the hash of a fresh token');
  }
  return [
    {
      type: 'RefreshTokenRotated',
      data: {
        grant_id: state.grantId,
        previous_hash: state.refreshTokenHash,
        refresh_token_hash: command.newRefreshTokenHash,
        jkt: state.jkt,
        occurred_at: command.now.toISOString(),
      },
    },
  ];
}

/**
 * RFC 7009: the current or a retired refresh token of this grant revokes the grant; an unknown
 * token or an already revoked grant is answered with success and changes nothing (§2.2); a token
 * of another client is refused (§2.1).
 */
function decideRevokeRefreshToken(command: RevokeRefreshToken, state: GrantState): GrantEvent[] {
  assertText(command.clientId, 'clientId', 256);
  assertHash(command.refreshTokenHash, 'refreshTokenHash');
  if (state.status === 'none' || state.status === 'revoked') return [];
  const ours = command.refreshTokenHash === state.refreshTokenHash || state.retiredRefreshTokenHashes.has(command.refreshTokenHash);
  if (!ours) return [];
  if (command.clientId !== state.clientId) throw new GrantClientMismatchError();
  return [revoked(state, 'client_revocation', { id: command.clientId, role: 'client' }, command.now)];
}

function revoked(state: Grant, reason: GrantRevocationReason, actor: Actor, now: Date): GrantEvent {
  return {
    type: 'GrantRevoked',
    data: { grant_id: state.grantId, mission_id: state.missionId, reason, actor: actorData(actor), occurred_at: now.toISOString() },
  };
}

function assertHash(value: unknown, what: string): asserts value is string {
  if (!isSha256Base64url(value)) throw new InvalidCommandError(`${what} must be 43 base64url characters (a SHA-256 value)`);
}
