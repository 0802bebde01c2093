import type { Decider } from '@mission/decider';
import { authorityHash, isAuthorityHash } from '../authority-set/authority-hash.js';
import type { AuthoritySet } from '../authority-set/authority-set.js';
import { InvalidAuthorizationDetailsError } from '../authority-set/invalid-authorization-details.error.js';
import { parseAuthorizationDetails } from '../authority-set/parse-authorization-details.js';
import type { MissionIntent } from '../mission-intent/mission-intent.js';
import { actorData, assertActor } from '../shared/actor.js';
import { InvalidCommandError } from '../shared/errors.js';
import { assertDate, assertText } from '../shared/guards.js';
import { hasControlCharacters, isWellFormedString } from '../shared/json.js';
import { parseRfc3339 } from '../shared/rfc3339.js';
import { InvalidLifecycleRequestError } from './invalid-lifecycle-request.error.js';
import type { ChangeMissionLifecycle, CreateMission, ExpireMission, MissionCommand } from './mission.commands.js';
import {
  InvalidTransitionError,
  MissionAlreadyExistsError,
  MissionNotActiveError,
  MissionNotFoundError,
  MissionNotYetExpiredError,
  NonceReuseError,
  StaleVersionError,
} from './mission.errors.js';
import type { MissionCreated, MissionEvent, MissionExpired, MissionLifecycleEvent, MissionTransitionData } from './mission.events.js';
import { effectiveState, initialMissionState, missionExists, nonceKey, type Mission, type MissionState } from './mission.state.js';
import { isMissionId } from './mission-id.js';
import { isLifecycleOperation, isTerminalMissionState, nextMissionState, type LifecycleOperation, type MissionLifecycleState } from './mission-lifecycle.js';
import { assertParentLink, parentLinkData } from './parent-link.js';

export const LIFECYCLE_REQUEST_LIMITS = {
  maxReasonLength: 1000,
  maxNonceLength: 128,
} as const;

/** Visible ASCII only, so a nonce is compared exactly as the client typed it. */
const NONCE = /^[\x21-\x7e]+$/;

const EVENT_FOR: Record<LifecycleOperation, MissionLifecycleEvent['type']> = {
  suspend: 'MissionSuspended',
  resume: 'MissionResumed',
  revoke: 'MissionRevoked',
  complete: 'MissionCompleted',
};
const OPERATION_FOR: Record<MissionLifecycleEvent['type'], LifecycleOperation> = {
  MissionSuspended: 'suspend',
  MissionResumed: 'resume',
  MissionRevoked: 'revoke',
  MissionCompleted: 'complete',
};

/**
 * The Mission aggregate (stream `mission-<mission_id>`), root or child alike. Every decision on an
 * existing mission goes through `effectiveState` (expiry before stored state, DESIGN 2.3); every
 * committed transition increments `version` (creation is version 1). Refusals are typed errors
 * (mission.errors.ts). The transition table is in mission-lifecycle.ts.
 */
export const missionDecider: Decider<MissionCommand, MissionEvent, MissionState> = {
  initialState: initialMissionState,

  decide(command, state) {
    switch (command.type) {
      case 'create':
        return decideCreate(command, state);
      case 'expire':
        return decideExpire(command, state);
      case 'revoke':
      case 'suspend':
      case 'resume':
      case 'complete':
        return decideLifecycle(command, state);
      default:
        throw new InvalidCommandError('unknown mission command');
    }
  },

  evolve(state, event) {
    if (event.type === 'MissionCreated') return created(event.data);
    if (!missionExists(state)) return state;
    const data = event.data;
    const nonces =
      event.type !== 'MissionExpired' && data.nonce !== undefined
        ? new Map(state.nonces).set(nonceKey(data.actor.id, data.nonce), { operation: OPERATION_FOR[event.type], state: data.state, version: data.version })
        : state.nonces;
    return { ...state, lifecycle: data.state, version: data.version, updatedAt: new Date(data.occurred_at), nonces };
  },
};

function created(data: MissionCreated['data']): Mission {
  return {
    lifecycle: 'active',
    missionId: data.mission_id,
    issuer: data.issuer,
    clientId: data.client_id,
    authoritySet: data.authority_set,
    authorityHash: data.authority_hash,
    intent: data.intent,
    expiresAt: new Date(data.expires_at),
    createdAt: new Date(data.occurred_at),
    approvedBy: data.approved_by,
    ...(data.parent ? { parent: data.parent } : {}),
    version: data.version,
    updatedAt: new Date(data.occurred_at),
    nonces: new Map(),
  };
}

function decideCreate(command: CreateMission, state: MissionState): MissionEvent[] {
  if (missionExists(state)) throw new MissionAlreadyExistsError(state.missionId);
  if (!isMissionId(command.missionId)) throw new InvalidCommandError('missionId must be a mission_id');
  assertText(command.issuer, 'issuer', 2048);
  assertText(command.clientId, 'clientId', 256);
  assertActor(command.approvedBy, 'approvedBy');
  assertDate(command.now, 'now');
  assertDate(command.expiresAt, 'expiresAt');
  const authoritySet = checkedAuthoritySet(command.authoritySet);
  if (!isAuthorityHash(command.authorityHash) || command.authorityHash !== authorityHash(command.issuer, authoritySet)) {
    throw new InvalidCommandError('authorityHash does not match the authority set and issuer (DESIGN 2.3)');
  }
  const intent = checkedIntent(command.intent);
  if (command.expiresAt.getTime() <= command.now.getTime()) throw new InvalidCommandError('expiresAt must be later than now');
  if (command.expiresAt.getTime() > parseRfc3339(intent.expires_at)!.getTime()) {
    throw new InvalidCommandError('expiresAt must not be later than the intent expires_at');
  }
  if (command.parent !== undefined) assertParentLink(command.parent, { missionId: command.missionId, issuer: command.issuer });

  return [
    {
      type: 'MissionCreated',
      data: {
        mission_id: command.missionId,
        issuer: command.issuer,
        client_id: command.clientId,
        authority_set: authoritySet,
        authority_hash: command.authorityHash,
        intent,
        expires_at: command.expiresAt.toISOString(),
        approved_by: actorData(command.approvedBy),
        ...(command.parent !== undefined ? { parent: parentLinkData(command.parent) } : {}),
        state: 'active',
        version: 1,
        occurred_at: command.now.toISOString(),
      },
    },
  ];
}

function decideLifecycle(command: ChangeMissionLifecycle, state: MissionState): MissionEvent[] {
  assertActor(command.actor, 'actor');
  assertDate(command.now, 'now');
  checkLifecycleRequest(command);
  if (!missionExists(state)) throw new MissionNotFoundError();

  // Idempotency first: a repeat answers as the first request did, even if the mission moved on.
  if (command.nonce !== undefined) {
    const recorded = state.nonces.get(nonceKey(command.actor.id, command.nonce));
    if (recorded) {
      if (recorded.operation !== command.type) throw new NonceReuseError(recorded.operation, command.type);
      return [];
    }
  }

  const from = effectiveState(state, command.now);
  if (isTerminalMissionState(from)) throw new MissionNotActiveError(from);
  if (command.expectedVersion !== undefined && command.expectedVersion !== state.version) {
    throw new StaleVersionError(command.expectedVersion, state.version);
  }
  const to = nextMissionState(from, command.type);
  if (to === undefined) throw new InvalidTransitionError(from, command.type);

  const data: MissionTransitionData<MissionLifecycleState> = {
    mission_id: state.missionId,
    actor: actorData(command.actor),
    reason: command.reason,
    previous_state: from,
    state: to,
    version: state.version + 1,
    occurred_at: command.now.toISOString(),
    ...(command.nonce !== undefined ? { nonce: command.nonce } : {}),
    ...(command.expectedVersion !== undefined ? { expected_version: command.expectedVersion } : {}),
  };
  return [{ type: EVENT_FOR[command.type], data } as MissionLifecycleEvent];
}

function decideExpire(command: ExpireMission, state: MissionState): MissionEvent[] {
  assertActor(command.actor, 'actor');
  assertDate(command.now, 'now');
  if (!missionExists(state)) throw new MissionNotFoundError();
  if (isTerminalMissionState(state.lifecycle)) return [];
  if (command.now.getTime() < state.expiresAt.getTime()) throw new MissionNotYetExpiredError(state.lifecycle, state.expiresAt.toISOString());
  const event: MissionExpired = {
    type: 'MissionExpired',
    data: {
      mission_id: state.missionId,
      actor: actorData(command.actor),
      reason: 'expires_at reached',
      previous_state: state.lifecycle,
      state: 'expired',
      version: state.version + 1,
      occurred_at: command.now.toISOString(),
      expires_at: state.expiresAt.toISOString(),
    },
  };
  return [event];
}

function checkLifecycleRequest(command: ChangeMissionLifecycle): void {
  const L = LIFECYCLE_REQUEST_LIMITS;
  if (!isLifecycleOperation(command.type)) throw new InvalidLifecycleRequestError('operation must be one of revoke, suspend, resume, complete');
  const { reason, nonce, expectedVersion } = command;
  if (typeof reason !== 'string' || reason.trim().length === 0 || reason.length > L.maxReasonLength) {
    throw new InvalidLifecycleRequestError(`reason must be a non-empty string of at most ${L.maxReasonLength} characters`);
  }
  if (hasControlCharacters(reason, true) || !isWellFormedString(reason)) throw new InvalidLifecycleRequestError('reason must not contain control characters');
  if (nonce !== undefined && (typeof nonce !== 'string' || nonce.length > L.maxNonceLength || !NONCE.test(nonce))) {
    throw new InvalidLifecycleRequestError(`nonce must be 1 to ${L.maxNonceLength} visible ASCII characters`);
  }
  if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 1)) {
    throw new InvalidLifecycleRequestError('expected_version must be a positive integer');
  }
}

function checkedAuthoritySet(set: AuthoritySet): AuthoritySet {
  try {
    return parseAuthorizationDetails(set);
  } catch (error) {
    if (error instanceof InvalidAuthorizationDetailsError) throw new InvalidCommandError(`authoritySet: ${error.message}`);
    throw error;
  }
}

function checkedIntent(intent: MissionIntent): MissionIntent {
  const ok =
    typeof intent === 'object' &&
    intent !== null &&
    typeof intent.goal === 'string' &&
    intent.goal.length > 0 &&
    Array.isArray(intent.resources) &&
    intent.resources.every((resource) => typeof resource === 'string') &&
    typeof intent.expires_at === 'string' &&
    parseRfc3339(intent.expires_at) !== undefined;
  if (!ok || hasControlCharacters(intent.expires_at)) throw new InvalidCommandError('intent must be a parsed MissionIntent');
  return { goal: intent.goal, resources: [...intent.resources], expires_at: intent.expires_at };
}
