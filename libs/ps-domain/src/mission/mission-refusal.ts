import { InvalidCommandError } from '../errors/ps-domain.error.js';
import { assertDate } from '../shared/guards.js';
import { MISSION_POLICIES } from './management-caller.js';
import { authorized, expiryFirst, logData } from './mission-decision.js';
import { REFUSAL_CODES, type RecordRefusal } from './mission.commands.js';
import type { MissionEvent } from './mission.events.js';
import type { MissionState } from './mission.state.js';
import { isPurpose, isRequestIdText, isTerminationReason } from './termination-rules.js';

/**
 * Spec 6, 2.8 (ADR 0018): the refusal of a request by a caller authorized for the mission (absent ≡ not
 * authorized: no event, MissionNotFoundError as for every operation). Expiry first; the refusal changes
 * no state, so the first termination, if any, stands.
 */
export function decideRecordRefusal(command: RecordRefusal, state: MissionState): MissionEvent[] {
  assertDate(command.now, 'now');
  if (command.operation !== 'terminate') throw new InvalidCommandError('operation must be terminate');
  if (!(REFUSAL_CODES as readonly string[]).includes(command.error)) throw new InvalidCommandError(`error must be one of ${REFUSAL_CODES.join(', ')}`);
  if (command.requestId !== undefined && !isRequestIdText(command.requestId)) throw new InvalidCommandError('requestId must be request_id text');
  if (command.requestedReason !== undefined && !isTerminationReason(command.requestedReason)) throw new InvalidCommandError('requestedReason must be a termination reason');
  if (command.purpose !== undefined && !isPurpose(command.purpose)) throw new InvalidCommandError('purpose must be purpose text');
  const { mission: current, role, actor } = authorized(state, command.caller);
  const { events, mission } = expiryFirst(current, command.now, command.trackedTokens);
  return [
    ...events,
    {
      type: 'ManagementRequestRefused',
      data: {
        ...logData(mission, command.now, actor, MISSION_POLICIES[role], 'deny'),
        operation: command.operation,
        error: command.error,
        ...(command.requestId !== undefined ? { request_id: command.requestId } : {}),
        ...(command.requestedReason !== undefined ? { requested_reason: command.requestedReason } : {}),
        ...(command.purpose !== undefined ? { purpose: command.purpose } : {}),
      },
    },
  ];
}
