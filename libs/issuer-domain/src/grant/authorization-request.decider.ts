import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { InvalidAuthorizationDetailsError } from '../authority-set/invalid-authorization-details.error.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import { isMissionId } from '../mission/mission-id.js';
import { actorData, assertActor } from '../shared/actor.js';
import { InvalidCommandError } from '../shared/errors.js';
import { assertDate, assertOptionalText, assertText } from '../shared/guards.js';
import { parseRfc3339 } from '@mission/decider';
import { isSha256Base64url } from '../shared/sha256.js';
import { absoluteUriProblem } from '../shared/uri.js';
import type { AuthorizationRequestCommand, PushAuthorizationRequest } from './authorization-request.commands.js';
import {
  AuthorizationRequestAlreadyUsedError,
  AuthorizationRequestClientMismatchError,
  AuthorizationRequestExistsError,
  AuthorizationRequestExpiredError,
  AuthorizationRequestNotFoundError,
} from './authorization-request.errors.js';
import type { AuthorizationRequestEvent } from './authorization-request.events.js';
import type { AuthorizationRequest, AuthorizationRequestState, AuthorizationRequestStatus } from './authorization-request.state.js';
import { isGrantId, isRequestId } from './grant-ids.js';

/** Status by time: a pending request is `expired` once `now ≥ expires_at`. */
export function authorizationRequestStatus(state: AuthorizationRequestState, now: Date): AuthorizationRequestStatus | 'none' {
  if (state.status === 'pending' && now.getTime() >= state.expiresAt.getTime()) return 'expired';
  return state.status;
}

/**
 * The request as `/authorize` may still act on it (render the consent page, approve, decline):
 * it exists, belongs to `clientId`, was not used and has not expired.
 */
export function pendingAuthorizationRequest(state: AuthorizationRequestState, context: { clientId: string; now: Date }): AuthorizationRequest {
  if (state.status === 'none') throw new AuthorizationRequestNotFoundError();
  if (state.clientId !== context.clientId) throw new AuthorizationRequestClientMismatchError();
  if (state.status !== 'pending') throw new AuthorizationRequestAlreadyUsedError();
  if (authorizationRequestStatus(state, context.now) === 'expired') throw new AuthorizationRequestExpiredError();
  return state;
}

/** RFC 9126 pushed authorization request on stream `par-<request_id>`: used once, expires by time. */
export const authorizationRequestDecider: Decider<AuthorizationRequestCommand, AuthorizationRequestEvent, AuthorizationRequestState> = {
  initialState: { status: 'none' },

  decide(command, state) {
    switch (command.type) {
      case 'PushAuthorizationRequest':
        return decidePush(command, state);
      case 'ApproveAuthorizationRequest': {
        assertDate(command.now, 'now');
        assertActor(command.approvedBy, 'approvedBy');
        if (!isMissionId(command.missionId)) throw new InvalidCommandError('missionId must be a mission_id');
        if (!isGrantId(command.grantId)) throw new InvalidCommandError('grantId must be a grant id');
        const request = pendingAuthorizationRequest(state, command);
        return [
          {
            type: 'AuthorizationRequestApproved',
            data: {
              request_id: request.requestId,
              mission_id: command.missionId,
              grant_id: command.grantId,
              approved_by: actorData(command.approvedBy),
              occurred_at: command.now.toISOString(),
            },
          },
        ];
      }
      case 'DeclineAuthorizationRequest': {
        assertDate(command.now, 'now');
        assertActor(command.actor, 'actor');
        assertText(command.reason, 'reason', 1000);
        const request = pendingAuthorizationRequest(state, command);
        return [
          {
            type: 'AuthorizationRequestDeclined',
            data: { request_id: request.requestId, actor: actorData(command.actor), reason: command.reason, occurred_at: command.now.toISOString() },
          },
        ];
      }
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown authorization request command'));
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'PushedAuthorizationRequestReceived': {
        const d = event.data;
        return {
          status: 'pending',
          requestId: d.request_id,
          clientId: d.client_id,
          redirectUri: d.redirect_uri,
          codeChallenge: d.code_challenge,
          ...(d.state !== undefined ? { state: d.state } : {}),
          ...(d.dpop_jkt !== undefined ? { dpopJkt: d.dpop_jkt } : {}),
          authoritySet: d.authority_set,
          intent: d.intent,
          expiresAt: new Date(d.expires_at),
          receivedAt: new Date(d.occurred_at),
        };
      }
      case 'AuthorizationRequestApproved':
        if (state.status === 'none') return state;
        return {
          ...state,
          status: 'approved',
          approval: { missionId: event.data.mission_id, grantId: event.data.grant_id, approvedBy: event.data.approved_by, at: new Date(event.data.occurred_at) },
        };
      case 'AuthorizationRequestDeclined':
        return state.status === 'none' ? state : { ...state, status: 'declined' };
    }
  },
};

function decidePush(command: PushAuthorizationRequest, state: AuthorizationRequestState): AuthorizationRequestEvent[] {
  if (state.status !== 'none') throw new AuthorizationRequestExistsError('authorization request already exists');
  if (!isRequestId(command.requestId)) throw new InvalidCommandError('requestId must be a request id');
  assertText(command.clientId, 'clientId', 256);
  if (absoluteUriProblem(command.redirectUri)) throw new InvalidCommandError('redirectUri must be an absolute URI');
  if (command.codeChallengeMethod !== 'S256') throw new InvalidCommandError('codeChallengeMethod must be S256');
  if (!isSha256Base64url(command.codeChallenge)) throw new InvalidCommandError('codeChallenge must be an S256 challenge (43 base64url characters)');
  assertOptionalText(command.state, 'state', 1024);
  if (command.dpopJkt !== undefined && !isSha256Base64url(command.dpopJkt)) throw new InvalidCommandError('dpopJkt must be a JWK SHA-256 thumbprint');
  assertDate(command.now, 'now');
  assertDate(command.expiresAt, 'expiresAt');
  if (command.expiresAt.getTime() <= command.now.getTime()) throw new InvalidCommandError('expiresAt must be later than now');
  let authoritySet;
  try {
    authoritySet = parseAuthorizationDetails(command.authoritySet);
  } catch (error) {
    if (error instanceof InvalidAuthorizationDetailsError) throw new InvalidCommandError(`authoritySet: ${error.message}`);
    throw error;
  }
  const { intent } = command;
  if (typeof intent?.goal !== 'string' || !Array.isArray(intent.resources) || typeof intent.expires_at !== 'string' || !parseRfc3339(intent.expires_at)) {
    throw new InvalidCommandError('intent must be a parsed MissionIntent');
  }
  return [
    {
      type: 'PushedAuthorizationRequestReceived',
      data: {
        request_id: command.requestId,
        client_id: command.clientId,
        redirect_uri: command.redirectUri,
        code_challenge: command.codeChallenge,
        code_challenge_method: 'S256',
        ...(command.state !== undefined ? { state: command.state } : {}),
        ...(command.dpopJkt !== undefined ? { dpop_jkt: command.dpopJkt } : {}),
        authority_set: authoritySet,
        intent: { goal: intent.goal, resources: [...intent.resources], expires_at: intent.expires_at },
        expires_at: command.expiresAt.toISOString(),
        occurred_at: command.now.toISOString(),
      },
    },
  ];
}
