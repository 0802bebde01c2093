import type { Decider } from '@mission/decider';
import { unknownCommand } from '@mission/decider';
import { isMissionS256 } from '../blob/mission-s256.js';
import { MissionNotFoundError } from '../errors/management.errors.js';
import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate, assertOptionalDate } from '../shared/guards.js';
import { isBoundedText } from '../shared/text.js';
import { MISSION_POLICIES } from './management-caller.js';
import { checkBlobDeletionRequest, MissionStillActiveError } from './mission-blob-deletion.js';
import { authorized, expiryFirst, logData, tokenImpact } from './mission-decision.js';
import { decideRecordRefusal } from './mission-refusal.js';
import type { ApplyMissionExpiry, ApproveMission, DeleteMissionBlob, MissionCommand, ReadDelegationTree, ReadMissionStatus, TerminateMission } from './mission.commands.js';
import type { MissionEvent } from './mission.events.js';
import { evolveMission } from './mission.evolve.js';
import { isPendingId } from '../proposal/pending-id.js';
import { proposalBodyStreamName } from '../proposal/proposal-content.js';
import { blobStreamName } from './mission-streams.js';
import { initialMissionState, missionExists, requestKey, type Mission, type MissionState } from './mission.state.js';
import { checkTerminationRequestSyntax, checkTerminationRules } from './termination-rules.js';

/**
 * The Mission aggregate of the Person Server (stream `psmission-<s256>`: lifecycle + mission log,
 * spec 2.8, 3, 6). Exactly two states, `active` and `terminated`. Every decision applies expiry
 * first: on an active mission past `expires_at` it first records MissionTerminated `expired` by the
 * PS scheduler, so expiry obeys "first committed transition wins" like every other termination
 * (spec 3 rule 2; the stream's expected revision serializes concurrent deciders). Every event carries
 * the next `sequence`. Refusals are typed errors; absent and unauthorized both give
 * MissionNotFoundError (spec 5.9).
 */
export const missionDecider: Decider<MissionCommand, MissionEvent, MissionState> = {
  initialState: initialMissionState,

  decide(command, state) {
    switch (command.type) {
      case 'ApproveMission':
        return decideApprove(command, state);
      case 'ReadMissionStatus':
        return decideReadStatus(command, state);
      case 'TerminateMission':
        return decideTerminate(command, state);
      case 'ReadDelegationTree':
        return decideReadTree(command, state);
      case 'ApplyMissionExpiry':
        return decideApplyExpiry(command, state);
      case 'DeleteMissionBlob':
        return decideDeleteBlob(command, state);
      case 'RecordRefusal':
        return decideRecordRefusal(command, state);
      default:
        return unknownCommand(command, () => new InvalidCommandError('unknown mission command'));
    }
  },

  evolve: evolveMission,
};

function decideApprove(command: ApproveMission, state: MissionState): MissionEvent[] {
  if (!isBoundedText(command.approver, 2048)) throw new InvalidCommandError('approver must be a non-empty identifier');
  if (!isMissionS256(command.missionS256)) throw new InvalidCommandError('missionS256 must be a mission digest');
  if (!isBoundedText(command.agent, 2048)) throw new InvalidCommandError('agent must be a non-empty identifier');
  if (!isBoundedText(command.approvedBy, 2048)) throw new InvalidCommandError('approvedBy must be a non-empty identifier');
  if (!isBoundedText(command.tenant, 256)) throw new InvalidCommandError('tenant must be a non-empty identifier');
  assertDate(command.now, 'now');
  assertOptionalDate(command.expiresAt, 'expiresAt');
  if (command.expiresAt !== undefined && command.expiresAt.getTime() <= command.now.getTime()) throw new InvalidCommandError('expiresAt must be later than now');
  if (command.pendingId !== undefined && !isPendingId(command.pendingId)) throw new InvalidCommandError('pendingId must be a pending id');

  if (missionExists(state)) {
    // A retry of the same approval (e.g. after a crash between the proposal and the mission append).
    const same =
      state.approver === command.approver &&
      state.missionS256 === command.missionS256 &&
      state.agent === command.agent &&
      state.approvedBy === command.approvedBy &&
      state.tenant === command.tenant &&
      state.approvedAt.getTime() === command.now.getTime() &&
      state.expiresAt?.getTime() === command.expiresAt?.getTime();
    if (same) return [];
    throw new InvalidCommandError('a different mission is already recorded on this stream');
  }

  return [
    {
      type: 'MissionApproved',
      data: {
        approver: command.approver,
        mission_s256: command.missionS256,
        sequence: 1,
        occurred_at: command.now.toISOString(),
        actor: { id: command.approvedBy, role: 'person' },
        authorization: { decision: 'permit', policy: MISSION_POLICIES.person },
        agent: command.agent,
        approved_by: command.approvedBy,
        tenant: command.tenant,
        approved_at: command.now.toISOString(),
        ...(command.expiresAt !== undefined ? { expires_at: command.expiresAt.toISOString() } : {}),
        ...(command.pendingId !== undefined ? { pending_id: command.pendingId } : {}),
      },
    },
  ];
}

function decideApplyExpiry(command: ApplyMissionExpiry, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  if (!missionExists(state)) throw new MissionNotFoundError('absent');
  return expiryFirst(state, command.now, command.trackedTokens).events;
}

function decideReadStatus(command: ReadMissionStatus, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  const { role, actor } = authorized(state, command.caller);
  const { events, mission } = expiryFirst(state as Mission, command.now, command.trackedTokens);
  const read: MissionEvent = {
    type: 'MissionStatusRead',
    data: {
      ...logData(mission, command.now, actor, MISSION_POLICIES[role]),
      mission_status: mission.status,
      ...(mission.status === 'terminated' ? { termination_reason: mission.termination.reason } : {}),
    },
  };
  return [...events, read];
}

function decideReadTree(command: ReadDelegationTree, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  if (command.nodeCount !== undefined && (!Number.isSafeInteger(command.nodeCount) || command.nodeCount < 0)) throw new InvalidCommandError('nodeCount must be a non-negative integer');
  if (command.complete !== undefined && typeof command.complete !== 'boolean') throw new InvalidCommandError('complete must be a boolean');
  const { role, actor } = authorized(state, command.caller);
  const { events, mission } = expiryFirst(state as Mission, command.now, command.trackedTokens);
  const read: MissionEvent = {
    type: 'DelegationTreeRead',
    data: {
      ...logData(mission, command.now, actor, MISSION_POLICIES[role]),
      ...(command.nodeCount !== undefined ? { node_count: command.nodeCount } : {}),
      ...(command.complete !== undefined ? { complete: command.complete } : {}),
    },
  };
  return [...events, read];
}

/**
 * Spec 4.2 in order: request syntax (needs no mission) → authorization (absent ≡ unauthorized) →
 * role rules (spec 5.4) and replacement (rule 1) → expiry first → if active, MissionTerminated
 * (first committed transition wins); if terminated, LateTerminationRequested and the existing
 * terminal status stands. A repeat of a request already logged on this mission (same caller and
 * `request_id`) decides nothing (spec 4.2 rule 2: no second lifecycle event).
 */
function decideTerminate(command: TerminateMission, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  checkTerminationRequestSyntax(command);
  const { mission: current, role, actor } = authorized(state, command.caller);
  const { reason, replacementS256 } = checkTerminationRules(role, command, current.missionS256);

  if (current.requestKeys.has(requestKey(actor, command.requestId))) return [];

  const { events, mission } = expiryFirst(current, command.now, command.trackedTokens);
  const policy = MISSION_POLICIES[role];
  const details = {
    request_id: command.requestId,
    ...(command.purpose !== undefined ? { purpose: command.purpose } : {}),
    ...(replacementS256 !== undefined ? { replacement_s256: replacementS256 } : {}),
  };
  if (mission.status === 'active') {
    return [
      {
        type: 'MissionTerminated',
        data: { ...logData(mission, command.now, actor, policy), reason, terminated_at: command.now.toISOString(), ...details, ...tokenImpact(mission, command.now, command.trackedTokens) },
      },
    ];
  }
  return [
    ...events,
    {
      type: 'LateTerminationRequested',
      data: {
        ...logData(mission, command.now, actor, policy),
        requested_reason: reason,
        ...details,
        termination_reason: mission.termination.reason,
        terminated_at: mission.termination.terminatedAt.toISOString(),
      },
    },
  ];
}

/**
 * Spec 3 rule 5, spec 8: an administrator of the mission's tenant (authorization as for every
 * operation: absent ≡ not authorized; other roles are not authorized for this one) deletes the body
 * of a terminated mission. Expiry first; an active mission is refused (MissionStillActiveError). The
 * first deletion is logged as MissionBlobDeleted; a repeat decides nothing (idempotent across
 * `request_id`s: the body is already gone and the tombstone says so).
 */
function decideDeleteBlob(command: DeleteMissionBlob, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  checkBlobDeletionRequest(command);
  const { mission: current, role, actor } = authorized(state, command.caller);
  if (role !== 'admin') throw new MissionNotFoundError('not_authorized');
  const { events, mission } = expiryFirst(current, command.now, command.trackedTokens);
  if (mission.status !== 'terminated') throw new MissionStillActiveError();
  if (mission.blobDeleted !== undefined) return events;
  return [
    ...events,
    {
      type: 'MissionBlobDeleted',
      data: {
        ...logData(mission, command.now, actor, MISSION_POLICIES.admin),
        blob_stream: blobStreamName(mission.missionS256),
        ...(mission.pendingId !== undefined ? { proposal_body_stream: proposalBodyStreamName(mission.pendingId) } : {}),
        request_id: command.requestId,
        purpose: command.purpose,
        termination_reason: mission.termination.reason,
        terminated_at: mission.termination.terminatedAt.toISOString(),
      },
    },
  ];
}

