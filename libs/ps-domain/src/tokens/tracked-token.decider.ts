import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { isMissionS256 } from '../blob/mission-s256.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { actorData, assertActor, type Actor } from '../shared/actor.js';
import { assertDate } from '../shared/guards.js';
import { isBoundedText } from '../shared/text.js';
import type { RecordIssuedToken, RecordRevocationAttempts, RecordRevocationResults, RevokeToken, StopRevocations, TrackedTokenCommand, WithholdToken } from './tracked-token.commands.js';
import {
  REVOCATION_FAILURES,
  TOKEN_POLICIES,
  type TokenIdentity,
  type TokenLogData,
  type TokenPolicy,
  type TrackedTokenEvent,
} from './tracked-token.events.js';
import { initialTrackedTokensState, isExpired, tokenKey, type TrackedTokensState } from './tracked-token.state.js';
import { evolveTrackedTokens } from './tracked-token.evolve.js';

export { evolveTrackedTokensMany } from './tracked-token.evolve.js';

/** Who records revocation work: the PS itself (spec 6 attribution), never a caller. */
export const PS_REVOCATION: Actor = { id: 'ps-revocation', role: 'system' };

const MAX_BATCH = 1_000;

/**
 * The Tracked Auth Tokens of one mission (stream `pstokens-<s256>`, spec 2.6, 4.4, 6): issuance,
 * withholding, and every revocation attempt and result. The rules that keep the residual honest live
 * here: a token is tracked once per `(iss, jti)`; only handed-out, unconfirmed, unexpired tokens are
 * attempted; a result must answer a recorded attempt; a token is confirmed at most once (a replayed
 * or duplicate `200` records nothing).
 */
export const trackedTokenDecider: Decider<TrackedTokenCommand, TrackedTokenEvent, TrackedTokensState> = {
  initialState: initialTrackedTokensState,

  decide(command, state) {
    switch (command.type) {
      case 'RecordIssuedToken':
        return decideIssued(command, state);
      case 'WithholdToken':
        return decideWithhold(command, state);
      case 'RecordRevocationAttempts':
        return decideAttempts(command, state);
      case 'RecordRevocationResults':
        return decideResults(command, state);
      case 'StopRevocations':
        return decideStop(command, state);
      case 'RevokeToken':
        return decideRevoke(command, state);
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown tracked token command'));
    }
  },

  evolve: evolveTrackedTokens,
};

function logData(state: TrackedTokensState, sequence: number, now: Date, actor: Actor, policy: TokenPolicy): TokenLogData {
  return {
    approver: state.approver!,
    mission_s256: state.missionS256!,
    sequence,
    occurred_at: now.toISOString(),
    actor: actorData(actor),
    authorization: { decision: 'permit', policy },
  };
}

function assertIdentity(identity: TokenIdentity, what: string): void {
  if (typeof identity !== 'object' || identity === null || !isBoundedText(identity.iss, 2048) || !isBoundedText(identity.jti, 256)) {
    throw new InvalidCommandError(`${what} must be a token identity {iss, jti}`);
  }
}

function decideIssued(command: RecordIssuedToken, state: TrackedTokensState): TrackedTokenEvent[] {
  const { token } = command;
  assertDate(command.now, 'now');
  assertActor(command.actor, 'actor');
  if (!isBoundedText(command.approver, 2048)) throw new InvalidCommandError('approver must be the PS identifier');
  if (!isMissionS256(command.missionS256)) throw new InvalidCommandError('missionS256 must be a mission digest');
  if (state.missionS256 !== undefined && (state.missionS256 !== command.missionS256 || state.approver !== command.approver)) {
    throw new InvalidCommandError('this stream tracks the tokens of another mission');
  }
  if (!(Object.values(TOKEN_POLICIES) as string[]).includes(command.policy)) throw new InvalidCommandError('policy must be a token policy');
  assertIdentity(token, 'token');
  if (!isBoundedText(token.aud, 2048) || !isBoundedText(token.agent, 2048)) throw new InvalidCommandError('aud and agent must be identifiers');
  if (token.origin !== 'issued' && token.origin !== 'federated') throw new InvalidCommandError('origin must be issued or federated');
  if (token.exp !== undefined) {
    assertDate(token.exp, 'exp');
    if (token.exp.getTime() <= command.now.getTime()) throw new InvalidCommandError('exp must be later than now');
  } else if (token.origin === 'issued') {
    throw new InvalidCommandError('a token this PS issues always has an exp');
  }
  if (token.revocationEndpoint !== undefined && !isBoundedText(token.revocationEndpoint, 2048)) throw new InvalidCommandError('revocationEndpoint must be a URL');
  if (token.scope !== undefined && !isBoundedText(token.scope, 4096)) throw new InvalidCommandError('scope must be a non-empty string');
  // Spec 2.7: parent_agent on every non-root node; a call chain names the upstream token it came from.
  if ((token.relationship === 'root') !== (token.parentAgent === undefined)) throw new InvalidCommandError('parentAgent is required exactly for non-root relationships');
  if (token.parentAgent !== undefined && !isBoundedText(token.parentAgent, 2048)) throw new InvalidCommandError('parentAgent must be an agent identifier');
  if ((token.relationship === 'call_chain') !== (token.upstream !== undefined)) throw new InvalidCommandError('upstream is required exactly for call_chain');
  if (token.upstream !== undefined) assertIdentity(token.upstream, 'upstream');
  if (!['root', 'sub_agent', 'call_chain'].includes(token.relationship)) throw new InvalidCommandError('relationship must be root, sub_agent or call_chain');
  // Spec 2.6: (iss, jti) is the identity; one record per token.
  if (state.tokens.has(tokenKey(token))) throw new InvalidCommandError('this (iss, jti) is already tracked');

  const head = { ...state, approver: command.approver, missionS256: command.missionS256 };
  return [
    {
      type: 'AuthTokenIssued',
      data: {
        ...logData(head, state.sequence + 1, command.now, command.actor, command.policy),
        iss: token.iss,
        jti: token.jti,
        aud: token.aud,
        ...(token.exp !== undefined ? { exp: token.exp.toISOString() } : {}),
        issued_at: command.now.toISOString(),
        origin: token.origin,
        ...(token.revocationEndpoint !== undefined ? { revocation_endpoint: token.revocationEndpoint } : {}),
        agent: token.agent,
        relationship: token.relationship,
        ...(token.parentAgent !== undefined ? { parent_agent: token.parentAgent } : {}),
        ...(token.upstream !== undefined ? { upstream: { iss: token.upstream.iss, jti: token.upstream.jti } } : {}),
        ...(token.scope !== undefined ? { scope: token.scope } : {}),
      },
    },
  ];
}

function decideWithhold(command: WithholdToken, state: TrackedTokensState): TrackedTokenEvent[] {
  assertDate(command.now, 'now');
  assertActor(command.actor, 'actor');
  assertIdentity(command.token, 'token');
  const token = state.tokens.get(tokenKey(command.token));
  if (token === undefined) throw new InvalidCommandError('only a tracked token can be withheld');
  if (!token.released) return [];
  return [
    {
      type: 'AuthTokenWithheld',
      data: { ...logData(state, state.sequence + 1, command.now, command.actor, TOKEN_POLICIES.owningAgent), iss: token.iss, jti: token.jti, reason: 'mission_terminated' },
    },
  ];
}

function assertBatch(items: readonly unknown[], what: string): void {
  if (!Array.isArray(items) || items.length > MAX_BATCH) throw new InvalidCommandError(`${what} must be an array of at most ${MAX_BATCH}`);
}

/** Spec 4.4 rule 1: only tokens still in need are attempted; each attempt gets the next number. */
function decideAttempts(command: RecordRevocationAttempts, state: TrackedTokensState): TrackedTokenEvent[] {
  assertDate(command.now, 'now');
  assertBatch(command.tokens, 'tokens');
  const events: TrackedTokenEvent[] = [];
  const seen = new Set<string>();
  for (const identity of command.tokens) {
    assertIdentity(identity, 'token');
    const key = tokenKey(identity);
    const token = state.tokens.get(key);
    if (token === undefined || seen.has(key)) continue;
    seen.add(key);
    if (!token.released || token.confirmedAt !== undefined || token.stopped !== undefined || isExpired(token, command.now)) continue;
    events.push({
      type: 'TokenRevocationAttempted',
      data: {
        ...logData(state, state.sequence + events.length + 1, command.now, PS_REVOCATION, TOKEN_POLICIES.revocation),
        iss: token.iss,
        jti: token.jti,
        attempt: token.attempts + 1,
        ...(token.revocationEndpoint !== undefined ? { endpoint: token.revocationEndpoint } : {}),
      },
    });
  }
  return events;
}

/**
 * Spec 4.4 rule 3, 6: one event per result of a recorded attempt. A result for an unknown attempt is
 * a bug; a result already recorded, or a second confirmation, records nothing (so a crash between the
 * call and the record, followed by a retry, never confirms a token twice).
 */
function decideResults(command: RecordRevocationResults, state: TrackedTokensState): TrackedTokenEvent[] {
  assertDate(command.now, 'now');
  assertBatch(command.results, 'results');
  const events: TrackedTokenEvent[] = [];
  const confirmed = new Set<string>();
  const answered = new Map<string, number>();
  for (const result of command.results) {
    assertIdentity(result, 'result');
    const key = tokenKey(result);
    const token = state.tokens.get(key);
    if (token === undefined) throw new InvalidCommandError('a result must be for a tracked token');
    if (!Number.isSafeInteger(result.attempt) || result.attempt < 1 || result.attempt > token.attempts) throw new InvalidCommandError('a result must answer a recorded attempt');
    if (token.confirmedAt !== undefined || confirmed.has(key)) continue;
    if (result.attempt <= Math.max(token.answered, answered.get(key) ?? 0)) continue;
    answered.set(key, result.attempt);
    const base = { ...logData(state, state.sequence + events.length + 1, command.now, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: token.iss, jti: token.jti, attempt: result.attempt };
    if (result.outcome === 'confirmed') {
      if (result.httpStatus !== undefined && result.httpStatus !== 200) throw new InvalidCommandError('only a 200 answer confirms a revocation');
      confirmed.add(key);
      events.push({ type: 'TokenRevocationConfirmed', data: { ...base, http_status: 200 } });
      continue;
    }
    if (!(REVOCATION_FAILURES as readonly string[]).includes(result.outcome)) throw new InvalidCommandError('unknown revocation outcome');
    if (result.httpStatus !== undefined && (!Number.isSafeInteger(result.httpStatus) || result.httpStatus < 100 || result.httpStatus > 599)) {
      throw new InvalidCommandError('httpStatus must be an HTTP status code');
    }
    events.push({ type: 'TokenRevocationFailed', data: { ...base, outcome: result.outcome, ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}) } });
  }
  return events;
}

function decideStop(command: StopRevocations, state: TrackedTokensState): TrackedTokenEvent[] {
  assertDate(command.now, 'now');
  assertBatch(command.tokens, 'tokens');
  if (command.reason !== 'expired' && command.reason !== 'attempts_exhausted') throw new InvalidCommandError('reason must be expired or attempts_exhausted');
  const events: TrackedTokenEvent[] = [];
  const seen = new Set<string>();
  for (const identity of command.tokens) {
    assertIdentity(identity, 'token');
    const key = tokenKey(identity);
    const token = state.tokens.get(key);
    if (token === undefined || seen.has(key) || !token.released || token.confirmedAt !== undefined || token.stopped !== undefined) continue;
    if (command.reason === 'expired' && !isExpired(token, command.now)) throw new InvalidCommandError('only an expired token stops as expired');
    seen.add(key);
    events.push({
      type: 'TokenRevocationStopped',
      data: { ...logData(state, state.sequence + events.length + 1, command.now, PS_REVOCATION, TOKEN_POLICIES.revocation), iss: token.iss, jti: token.jti, reason: command.reason },
    });
  }
  return events;
}

/**
 * DESIGN 3.1 revocation endpoint (ADR 0016): records that the token's holder or audience revoked it. Who may is
 * decided by the caller (it knows the authenticated party); here: only a handed-out token, once per kind of
 * revoker — a repeat, or a holder's revocation after the audience's, records nothing.
 */
function decideRevoke(command: RevokeToken, state: TrackedTokensState): TrackedTokenEvent[] {
  assertDate(command.now, 'now');
  assertActor(command.actor, 'actor');
  assertIdentity(command.token, 'token');
  if (command.by !== 'holder' && command.by !== 'audience') throw new InvalidCommandError('by must be holder or audience');
  const token = state.tokens.get(tokenKey(command.token));
  if (token === undefined) throw new InvalidCommandError('only a tracked token can be revoked');
  if (!token.released || token.revokedBy === 'audience' || token.revokedBy === command.by) return [];
  return [
    {
      type: 'AuthTokenRevoked',
      data: { ...logData(state, state.sequence + 1, command.now, command.actor, TOKEN_POLICIES.revocationRequest), iss: token.iss, jti: token.jti, revoked_by: command.by },
    },
  ];
}
